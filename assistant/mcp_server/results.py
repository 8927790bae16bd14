"""What the ask tool gives back, twice: structured (answer, grounding label and its meaning,
citations each with its file and place, an output schema the client can check), and as the text
a client shows a person, the label in words after the answer (grounding/label_text.py)."""
from __future__ import annotations

from typing_extensions import NotRequired, TypedDict  # pydantic reads typing's TypedDict from 3.12 only

from ..events.core import Answer, Passage
from ..grounding.label_text import meaning, sources_trailer


class Cited(TypedDict):
    n: int  # [n] in the answer
    file: str  # the file inside its indexed folder
    where: str  # file, page N or file § section: where a person finds it
    page: int | None
    section: str
    title: str
    text: str
    source: str  # the indexed folder or file


class Asked(TypedDict):
    answer: str  # with [n] markers
    grounding: str  # the label: supported, pieced together, written, not confirmed, not in your documents, from memory, not checked
    meaning: str  # the label in words
    citations: list[Cited]
    seconds: float
    closest: NotRequired[list[Cited]]  # when nothing supports the answer: the nearest passages


def _cited(n: int, p: Passage) -> Cited:
    return {"n": n, "file": p.path, "where": p.citation_label(), "page": p.page, "section": p.section,
            "title": p.title, "text": p.text, "source": p.source}


def answer_row(answer: Answer | None) -> Asked:
    if answer is None:
        return {"answer": "", "grounding": "", "meaning": "no answer came", "citations": [], "seconds": 0.0}
    row: Asked = {"answer": answer.marked_text or answer.text, "grounding": answer.grounding or "not checked",
                  "meaning": meaning(answer.grounding), "citations": [_cited(n, p) for n, p in enumerate(answer.citations, 1)],
                  "seconds": answer.seconds}
    if answer.closest:
        row["closest"] = [_cited(n, p) for n, p in enumerate(answer.closest, 1)]
    return row


def answer_text(answer: Answer | None) -> str:
    """The answer as a person reads it: the text, its sources under the label, the label's meaning."""
    if answer is None:
        return "(no answer came)"
    label = f"\n\nGrounding: {answer.grounding or 'not checked'} ({meaning(answer.grounding)})"
    return (answer.marked_text or answer.text or "(no answer)") + sources_trailer(answer) + label
