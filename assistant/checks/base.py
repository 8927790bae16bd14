"""What every answer check is: a look at the written answer that may decide it again.

The default pipeline runs the registered checks (`assistant/checks/__init__.py`) in order after the
answer is written. A check says whether the question and answer are its kind (`pending`: None when
not, else what it needs to decide), then decides (`decide`): it emits its one typed detail step and
returns the answer, kept or turned (marked with `origin.turned`). `suits` says which documents its
signals make sense for: a check built on encyclopedic pages (titles, opening sentences that state a
subject's date or nationality) is no judge of a person's own files.
"""
from __future__ import annotations

from typing import Any, ClassVar, Literal

from ..answering.generate import StrategyRun
from ..context import Result, RunContext
from ..events.core import Detail

Suits = Literal["any documents", "encyclopedic pages"]


class AnswerCheck:
    option: ClassVar[str]  # the default strategy's option that turns it on or off
    stage: ClassVar[str]  # the pipeline stage's name
    summary: ClassVar[str]  # what the stage does, in words (its trace line)
    detail: ClassVar[type[Detail]]  # the one typed step it emits
    mark: ClassVar[str]  # how an answer it turned is marked (Origin.turns)
    suits: ClassVar[Suits]

    def pending(self, question: str, answer: Result, ctx: RunContext) -> Any | None:
        """What deciding needs, when this question and answer are this check's kind; else None."""
        raise NotImplementedError

    def decide(self, question: str, answer: Result, pending: Any, ctx: RunContext,
               parent: int | None = None) -> StrategyRun:
        """Yield the detail step; return the answer kept or turned."""
        raise NotImplementedError
