"""A source as the detail pane shows it: its passage in full with the sentence that best
supports the answer highlighted; and the command that opens its original file (`o`) with the
system opener, at its page where a PDF viewer can be told one."""
from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Callable

from rich.text import Text

from assistant.events.core import Passage

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_WORD = re.compile(r"\w+")
HIGHLIGHT = "bold black on yellow"


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def supporting_span(text: str, answer: str) -> tuple[int, int] | None:
    """(start, end) of the passage's sentence sharing the most words with the answer; None when
    none shares any."""
    wanted = _words(answer)
    best, best_span = 0, None
    for match in _SENTENCE.finditer(text):
        shared = len(_words(match.group()) & wanted)
        if shared > best:
            start = match.start() + len(match.group()) - len(match.group().lstrip())
            best, best_span = shared, (start, match.end())
    return best_span


def highlighted(text: str, answer: str) -> Text:
    out = Text(text)
    span = supporting_span(text, answer) if answer else None
    if span:
        out.stylize(HIGHLIGHT, *span)
    return out


def file_of(passage: Passage) -> Path | None:
    """The original file of a passage from an indexed folder or file; None for a dump or a
    passage file's article (they have no file of their own) or a file that is gone."""
    if not passage.source:
        return None
    source = Path(passage.source)
    for candidate in (source, source / passage.path if passage.path else None):
        if candidate is not None and candidate.is_file() and candidate.suffix.lower() not in (".jsonl", ".tsv", ".xml", ".bz2"):
            return candidate
    return None


def open_command(path: Path, page: int | None = None, which: Callable[[str], str | None] | None = None,
                 platform: str = sys.platform) -> list[str] | None:
    """The command that opens `path` for the user (a PDF viewer at `page` when one that takes a
    page is installed); None when this system has no opener."""
    which = which or shutil.which
    if page and path.suffix.lower() == ".pdf":
        for viewer, flag in (("zathura", "--page"), ("evince", "--page-index"), ("okular", "--page")):
            if which(viewer):
                return [viewer, f"{flag}={page}", str(path)]
    if platform == "darwin":
        return ["open", str(path)]
    if platform.startswith("win"):
        return ["explorer", str(path)]
    for opener in ("xdg-open", "gio", "wslview"):
        if which(opener):
            return [opener, "open", str(path)] if opener == "gio" else [opener, str(path)]
    return None
