"""What one question's run needs: the models, the retriever, settings and running counts."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from models.config import Settings
from models.errors import BudgetExceeded

from .events import Passage, Retrieved


@dataclass
class Result:
    """What a strategy concluded; the runner turns it into the Answer event."""

    text: str
    citations: list[Passage] = field(default_factory=list)
    resolved_by: str = ""
    avg_prob: float | None = None


@dataclass
class RunContext:
    settings: Settings
    reader: object  # models.reader.Reader or a fake with the same methods
    judge: object | None = None  # models.judge.Judge
    retriever: object | None = None  # assistant.retriever.Retriever
    relevance: object | None = None  # models.relevance_judge.RelevanceJudge: ranks a wide pool
    retrievals: int = 0
    sub_questions: int = 0
    _steps: itertools.count = field(default_factory=lambda: itertools.count(1))
    _calls_at_start: int = 0

    def begin_question(self) -> None:
        """Reset the per-question counts (a context may serve many questions)."""
        self.retrievals = self.sub_questions = 0
        self._calls_at_start = self.reader.stats.calls

    def step(self) -> int:
        return next(self._steps)

    @property
    def k(self) -> int:
        return self.settings.k

    def check_budget(self) -> None:
        used = self.reader.stats.calls - self._calls_at_start
        if used >= self.settings.max_reader_calls:
            raise BudgetExceeded(f"reader-call bound of {self.settings.max_reader_calls} reached")

    def retrieve(self, query: str, k: int | None = None, parent: int | None = None, depth: int = 0):
        """Search the index, count it, and yield the Retrieved event; returns the passages."""
        if self.retriever is None:
            from models.errors import AssistantError

            raise AssistantError("this strategy needs an index; build one with `assistant index add FOLDER`")
        passages = self.retriever.search(query, k or self.k)
        self.retrievals += 1
        yield Retrieved(step=self.step(), parent=parent, depth=depth, query=query, passages=passages)
        return passages
