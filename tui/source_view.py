"""A source as the detail pane shows it: its passage in full with the sentence that best
supports the answer highlighted (its file and how to open it: assistant/presentation/source_files.py)."""
from __future__ import annotations

import re

from rich.text import Text

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
