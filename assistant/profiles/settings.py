"""The profiles' tuned limits (assistant/tuning.py: each with its bound, why and reader)."""
from __future__ import annotations

from dataclasses import dataclass

from ..tuning import DEFAULT_PRESET, SettingsGroup, setting


@dataclass(frozen=True)
class PagesSettings(SettingsGroup):
    """What the encyclopedia pages' profile reads after the missing hop."""

    union_read: int = setting(5, bound=(1, 20), why="hop_read=union: passages the answer reads from the top of "
                              "everything the hops found, ranked against the question (chosen on training "
                              "questions: lab/notes/history.md)")
    first_hop_carried: int = setting(3, bound=(0, 20), why="hop_read=first: the first hop's top passages read "
                                     "beside the sub-questions' new ones")


@dataclass(frozen=True)
class FilesSettings(SettingsGroup):
    """What the profile for a person's files reads."""

    search_kept: int = setting(5, bound=(0, 20), why="the plain search's best passages read beside the judge's "
                               "(the judge learned its ranking on encyclopedia pages; a manual it ranked low "
                               "may hold the answer). On the many-folders choose collections 5 read the "
                               "holding passage more often than 2 (91% of fact questions against 89%; rag@10 "
                               "93%); the bundled SmolLM2's preset keeps 2 (EVALUATION.md, \"Many folders\")",
                               reader=DEFAULT_PRESET)


PAGES = PagesSettings()
FILES = FilesSettings()
