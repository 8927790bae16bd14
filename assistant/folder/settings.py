"""The folder questions' tuned values (assistant/tuning.py): which questions are about the folder
(asks.py), what their answers show (answers.py) and how a file is summarised (summary.py)."""
from __future__ import annotations

from dataclasses import dataclass

from ..tuning import SettingsGroup, setting


@dataclass(frozen=True)
class FolderSettings(SettingsGroup):
    """Questions about the folder itself, answered from the index's files."""

    max_topic_words: int = setting(12, bound=(1, 100), why=(
        "a topic or file name of more words is a question, not a name to look for"))
    short_request_words: int = setting(6, bound=(0, 50), why=(
        "a request after the question of at most this many words ('A few lines please.'): the question "
        "is judged by its first sentence"))
    named_in_trace: int = setting(3, bound=(1, 50), why="files named in the step line; the rest shown as '…'")
    summary_tokens: int = setting(320, bound=(16, 8192), why=(
        "room for a summary of a few sentences (a short answer's bound is far less)"))
    read_cap: int = setting(400, bound=(1, 100000), why=(
        "passages ever put before the reader (a reader that cannot count tokens reads these)"))
    chars_per_token: int = setting(3, bound=(1, 20), why=(
        "a generous first guess of how many passages might fit, before counting tokens"))


FOLDER_SETTINGS = FolderSettings()
