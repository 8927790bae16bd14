"""What a profile is: the pipeline the default strategy runs for one kind of source.

A profile owns what differs between kinds of sources: the stages it runs and in which order, the
answer checks that suit its documents, and its grounding (how an answer is tied to the passages
read and labelled). It is chosen once per question from the sources searched
(`assistant/profiles/__init__.py`); the default strategy (strategies/default.py) only asks it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, ClassVar, TypeVar

from ..answering.generate import StrategyRun
from ..checks.base import AnswerCheck
from ..context import Result, RunContext
from ..events.details import PipelineStage
from ..grounding.citations import Attribution

if TYPE_CHECKING:
    from ..grounding.verdict import GroundingRule
    from ..strategies.default_options import DefaultOptions

T = TypeVar("T")


@dataclass
class QuestionRun:
    """One question on its way through a profile: what it needs, and the stages shown so far."""

    question: str
    ctx: RunContext
    opts: DefaultOptions
    _numbers: itertools.count = field(default_factory=lambda: itertools.count(1))

    def stage(self, module: str, summary: str, **fields) -> PipelineStage:
        """A stage step: numbered in the order shown (a stage that does not run takes no number)."""
        return PipelineStage(step=self.ctx.step(), summary=summary, stage=next(self._numbers), module=module,
                             **fields)

    def once(self, name: str, compute: Callable[[], T]) -> T:
        """A fact about this question (its subject, the files it names) computed once, whichever
        stage or the grounding asks first."""
        return self.ctx.question_fact((name, self.question), compute)


class Profile:
    """The pipeline for one kind of source; `answer` reads as its algorithm, stage by stage."""

    name: ClassVar[str]
    sources: ClassVar[str]  # the kind of sources it serves, in words

    def answer(self, run: QuestionRun) -> StrategyRun:
        """Yield the stages' steps; return the answer (a LabelledResult when a stage labelled it)."""
        raise NotImplementedError

    def suits(self, check: AnswerCheck) -> bool:
        """Whether an answer check's signals mean something in these documents."""
        raise NotImplementedError

    def ground(self, run: QuestionRun, text: str, result: Result, rule: GroundingRule) -> Attribution:
        """The answer's citations and label under the grounding rule: the one place they are decided."""
        raise NotImplementedError


def from_memory(result: Result) -> bool:
    """Whether the answer came from the reader's memory (RA-ISF's gate), not from passages."""
    return result.resolved_by.startswith("self-knowledge")
