"""How an answer came about, as a typed value: the step that wrote it, then each check that turned
it afterwards, in order.

On the wire (the Answer event, eval records) it stays one string, "passages+refined+dates": the
source, then a "+" before each turn. Parse it here rather than taking the string apart elsewhere.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..context import Result

# what turns an answer after it was written: ReFeed's revision, then the default's answer checks
REFINED = "refined"
# the source of an answer written from what the index knows of its files (folder/answers.py)
FOLDER = "folder"
# the source of an answer joining the answers to a question's parts (answering/parts.py)
PARTS = "parts"


@dataclass(frozen=True)
class Origin:
    source: str  # passages | self-knowledge | decomposition | multi-hop | fallback | rq-rag perplexity | ...
    turns: tuple[str, ...] = ()  # e.g. ("refined", "dates")

    @classmethod
    def parse(cls, resolved_by: str) -> Origin:
        source, *turns = (resolved_by or "").split("+")
        return cls(source, tuple(turns))

    def turned(self, by: str) -> Origin:
        return replace(self, turns=(*self.turns, by))

    def __str__(self) -> str:
        return "+".join((self.source, *self.turns))


def turned(answer: Result, by: str, text: str | None = None) -> Result:
    """The answer marked as turned by `by` (with its new text, when the check changed it)."""
    origin = Origin.parse(answer.resolved_by).turned(by)
    return replace(answer, text=answer.text if text is None else text, resolved_by=str(origin))
