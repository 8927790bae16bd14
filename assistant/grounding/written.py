"""The label for an answer a file writes but the check cannot confirm as the answer: "written, not
confirmed".

On a person's own files the word check (documents.py) finds the passage that writes an answer,
and then asks more of it: that the passage is about what was asked, that the answer is of the kind
asked (an address for "what address"), and, with a measured reader, that the reader reading the
lines again gives it as the answer (documents_check.py). An answer that fails only those is not
"not in your documents": a passage read holds it, and calling it absent hid right answers behind
"none of them supports the answer" with the holding passage listed under it (issue 62: 6 of 15 right
answers of a held-out folder). It keeps the passages that write it as citations, and the line before
the answer names the file and says what was not confirmed. Presented as supported it is not: the
evaluation counts it as honest, like "not in your documents".
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..answering.quoting import shown_label
from ..events.core import Passage
from .citations import Attribution, cite_sentences

WRITTEN = "written, not confirmed"
_MOST_FILES = 2  # files named in the line before the answer; the citations list every one


def files_of(cited: Sequence[Passage]) -> str:
    names = list(dict.fromkeys(shown_label(p.path or p.title) for p in cited))
    shown = ", ".join(names[:_MOST_FILES]) + (f" and {len(names) - _MOST_FILES} more" if len(names) > _MOST_FILES else "")
    return shown or "a passage read"


def note(cited: Sequence[Passage], why: str = "") -> str:
    """The line before the answer: which file writes it, and what was not confirmed."""
    because = f" ({why})" if why else ""
    return f"Written in {files_of(cited)}, but not confirmed as the answer to this question{because}:"


def written_not_confirmed(said: Sequence[str], found: Sequence[Sequence[int]], given: Sequence[Passage],
                          why: str = "") -> Attribution:
    """The answer cited, sentence by sentence, where its words are written (`found`: indices into
    `given` per sentence), under the label and its note."""
    cited = cite_sentences(said, found, given, WRITTEN)
    return replace(cited, marked_text=f"{note(cited.cited, why)} {cited.marked_text}")


def with_reason(checked: Attribution, why: str) -> Attribution:
    """A "written, not confirmed" answer whose note says why (the re-read's reading); any other unchanged."""
    if checked.grounding != WRITTEN or not why:
        return checked
    plain = f"{note(checked.cited)} "  # as written_not_confirmed put it
    answer = checked.marked_text[len(plain):] if checked.marked_text.startswith(plain) else checked.marked_text
    return replace(checked, marked_text=f"{note(checked.cited, why)} {answer}")
