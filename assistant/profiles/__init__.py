"""One pipeline per kind of source: the default strategy asks the profile its sources call for.

`pages` (pages.py): a Wikipedia dump, passage files and datasets: the memory gate, the judged
search read hop by hop, the missing hop, ReFeed, every answer check, the trained grounding check.
`files` (files.py): a person's own folders and files: questions about the folder, questions of
several parts, one reader call from the first search, the word check and the reader's re-read.
Each profile's tuned limits are in settings.py; its stages shared with the other in stages.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..context import RunContext
from .base import Profile, QuestionRun
from .files import PersonalFiles
from .pages import EncyclopediaPages

if TYPE_CHECKING:
    from ..strategies.default_options import DefaultOptions

PROFILES: dict[str, Profile] = {p.name: p for p in (EncyclopediaPages(), PersonalFiles())}


def profile_for(ctx: RunContext, opts: DefaultOptions) -> Profile:
    """The profile for the sources this question searches: a person's files when every source is a
    folder or a file (and the `documents` option is on), else encyclopedia pages."""
    return PROFILES["files" if opts.documents and ctx.documents else "pages"]


__all__ = ["PROFILES", "Profile", "QuestionRun", "profile_for"]
