"""The grounding label in words, for front ends whose clients show text alone (an OpenAI chat
client, an MCP tool's text): what each label means, and what follows an answer's text, its
sources under a heading that says what they are worth (or, without sources, one line saying
it and the closest passages), so that a person who never sees the structured fields still reads
"not in your documents"."""
from __future__ import annotations

import re

from ..answering.quoting import shown_label
from ..events.core import Answer, Passage

MEANINGS = {"supported": "the cited passages support the answer",
            "pieced together": "the cited pages were found, but none states this answer: a pick or a chain's last step",
            "written, not confirmed": "a cited file writes this answer, but the check could not confirm that it answers "
                                      "the question: say so, naming the file",
            "not in your documents": "the passages read do not hold this answer: do not present it as the documents'",
            "from memory": "the reader's own knowledge, not the documents"}
UNCHECKED = "this strategy does not check its answers"
SOURCES_HEADINGS = {"supported": "Sources (supported: the answer is stated in them):",
                    "pieced together": "Sources (pieced together: the pages were found, none states the answer):",
                    "written, not confirmed": "Sources (written, not confirmed: they write the answer; the check could "
                                              "not confirm it answers the question):",
                    "not in your documents": "Sources (not in your documents: they do not support the answer):",
                    "from memory": "Sources (from memory: the answer is the reader's own, not theirs):"}
UNSOURCED_LINES = {"not in your documents": "Not in your documents: nothing found supports this answer.",
                   "from memory": "From memory: the reader's own knowledge, not your documents."}
# the check found the answer written in none of them (else it is "written, not confirmed", cited)
CLOSEST_HEADING = "Closest passages read (the check did not find the answer in them):"
# Where an earlier answer's trailer starts, when a client sends that answer back as history.
_TRAILER = re.compile(r"\n\n(?:Sources\b|Not in your documents:|From memory:|Closest passages\b)")


def meaning(grounding: str) -> str:
    return MEANINGS.get(grounding, UNCHECKED)


def sources_trailer(answer: Answer) -> str:
    """What follows the answer's text ("" when nothing does): `[n] place` lines under a heading
    that carries the label, or the label's own line and the closest passages."""
    if answer.citations:
        heading = SOURCES_HEADINGS.get(answer.grounding, "Sources:")
        return f"\n\n{heading}" + "".join(f"\n[{n}] {place(p)}" for n, p in enumerate(answer.citations, 1))
    shown = answer.marked_text or answer.text  # the verdict may have said it first (verdict.NOT_IN_DOCUMENTS)
    said = bool(answer.grounding) and answer.grounding in shown.lower().split(":", 1)[0]  # its opening line said it
    out = f"\n\n{UNSOURCED_LINES[answer.grounding]}" if answer.grounding in UNSOURCED_LINES and not said else ""
    if answer.closest:
        out += f"\n\n{CLOSEST_HEADING}" + "".join(f"\n- {place(p)}" for p in answer.closest)
    return out


def place(passage: Passage) -> str:
    """Where a person finds the passage: its file (and page), and its section when it has one,
    so that three passages of one file are told apart."""
    label = shown_label(passage.citation_label())  # one line, bounded: the index's metadata, quoted
    return f"{label} § {shown_label(passage.section, 60)}" if passage.section else label


def without_trailer(text: str) -> str:
    """An answer as shown, without what sources_trailer added."""
    return _TRAILER.split(text, maxsplit=1)[0]
