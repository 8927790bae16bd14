"""What one question's run needs: the models, the retriever, settings and running counts."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence, TypeVar

from models.config import Settings
from models.errors import BudgetExceeded, NoIndex

from .events.core import Passage, Retrieved
from .tuning import in_preset, reader_preset

if TYPE_CHECKING:  # types only: loading these pulls in llama.cpp, onnxruntime or the index
    from models.judges.judge import Judge
    from models.reader.llama_reader import Reader, ReaderStats
    from models.judges.relevance import RelevanceJudge

    from .answering.answer_options import AnswerOptions
    from .retrieval.retriever import Retriever

G = TypeVar("G")  # a settings group (assistant/tuning.py)


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
    reader: Reader  # or a fake with the same methods (tests/helpers/fakes.py)
    judge: Judge | None = None
    retriever: Retriever | None = None
    relevance: RelevanceJudge | None = None  # the trained judge: ranks a wide pool
    retrievals: int = 0
    sub_questions: int = 0
    # a caller's wishes for the top-level answer (the server's max_tokens, stop, temperature,
    # system messages); None: the settings decide
    answer_options: AnswerOptions | None = None
    answer_finish: str = ""  # why the last top-level answer's generation ended: stop, length, loop
    _steps: itertools.count = field(default_factory=lambda: itertools.count(1))
    _facts: dict = field(default_factory=dict)  # this question's facts, computed once (question_fact)
    _stats_at_start: ReaderStats | None = None

    def tuned(self, group: G) -> G:
        """A settings group with the overrides measured for this run's reader (assistant/tuning.py)."""
        return in_preset(group, reader_preset(self.reader))

    def begin_question(self) -> None:
        """Reset the per-question counts (a context may serve many questions)."""
        self.retrievals = self.sub_questions = 0
        self.answer_finish = ""
        self._facts.clear()
        self._stats_at_start = self.reader.stats.snapshot()

    def reader_usage(self) -> dict:
        """This question's reader calls and tokens so far (the one place they are counted):
        calls, prompt_tokens, evaluated_tokens, completion_tokens."""
        if self._stats_at_start is None:  # not begun (a strategy run on its own): every call counts
            self._stats_at_start = type(self.reader.stats)()
        return self.reader.stats.since(self._stats_at_start)

    def question_fact(self, key, compute: Callable[[], object]):
        """A fact about the question being answered (its subject, the files it names), computed the
        first time a stage asks and kept until the next question begins."""
        if key not in self._facts:
            self._facts[key] = compute()
        return self._facts[key]

    def step(self) -> int:
        return next(self._steps)

    @property
    def k(self) -> int:
        return self.settings.k

    @property
    def documents(self) -> bool:
        """The index searched holds a person's own files only (not a dump, passages or a dataset)."""
        return bool(getattr(self.retriever, "holds_documents", False))

    def check_budget(self) -> None:
        if self.reader_usage()["calls"] >= self.settings.max_reader_calls:
            raise BudgetExceeded(f"reader-call bound of {self.settings.max_reader_calls} reached")

    def retrieve(self, query: str, k: int | None = None, parent: int | None = None, depth: int = 0):
        """Search the index, count it, and yield the Retrieved event; returns the passages."""
        if self.retriever is None:
            raise NoIndex("this strategy needs an index; build one with `assistant index add FOLDER`")
        passages = self.retriever.search(query, k or self.k)
        self.retrievals += 1
        yield Retrieved(step=self.step(), parent=parent, depth=depth, query=query, passages=passages)
        return passages

    def similarity(self, query: str, texts: Sequence[str]) -> list[float] | None:
        """Cosine similarity of each text to the query in the index's embedding space; None
        when there is no retriever, or it cannot say."""
        return self.retriever.similarity(query, texts) if self.retriever is not None else None
