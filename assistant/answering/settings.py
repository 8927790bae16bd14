"""The answer steps' tuned values (assistant/tuning.py): the missing hop (hops.py), fitting the
prompt to the reader's context (prompt_fit.py), what a prompt quotes (prompts.py, quoting.py), how
a question of several parts is split (parts.py) and the answer's room (generate.py)."""
from __future__ import annotations

from dataclasses import dataclass

from ..tuning import SettingsGroup, setting


@dataclass(frozen=True)
class AnsweringSettings(SettingsGroup):
    """Limits of the answer steps shared by the strategies."""

    max_sub_questions: int = setting(3, bound=(1, 10), why=(
        "sub-questions the missing hop asks at most: each costs a search and a reader call"))
    sub_passages: int = setting(3, bound=(1, 20), why="passages a sub-question's answer reads")
    carried: int = setting(2, bound=(0, 20), why="of a sub-question's passages, how many join the final answer's")
    min_passage_chars: int = setting(300, bound=(1, 10000), why=(
        "a passage cut shorter than this rarely still holds its fact: the prompt drops one instead"))
    safety_tokens: int = setting(8, bound=(0, 256), why=(
        "tokens kept free in the context: chat templates may add a token or two at generation time"))
    answer_room_divisor: int = setting(4, bound=(1, 64), why=(
        "the answer's room in the context is at most n_ctx // this: the passages keep the rest"))
    max_quoted_chars: int = setting(200, bound=(1, 10000), why=(
        "a quoted title or heading is cut here: longer is body text posing as one"))
    max_label_chars: int = setting(80, bound=(1, 1000), why=(
        "characters of a title, heading or file name in the sources list shown to the user at most"))
    room_unknown: int = setting(8192, bound=(16, 1_048_576), why=(
        "the longest answer a caller who gives no max_tokens gets from a reader that does not say its context"))
    bare_part_words: int = setting(3, bound=(0, 20), why=(
        "a second part with at most this many words of its own ('and what's the bug address?') names "
        "nothing: it is asked of what the first part names"))
    verb_last_above_words: int = setting(3, bound=(2, 20), why=(
        "a question of more words whose second is an auxiliary ('What does grep do') has its verb last: "
        "its subject is the words between"))
    short_subject_words: int = setting(5, bound=(1, 20), why="a subject of at most this many words is short")


ANSWERING = AnsweringSettings()
