"""Run one question through a strategy: the event stream, ending with the Answer."""
from __future__ import annotations

import time
from typing import Iterator

from models.config import Settings
from models.errors import AssistantError, BudgetExceeded, NoIndex

from .context import Result, RunContext
from .events.core import Answer, Event, Note, Started
from .answering.quoting import answer_text
from .strategies import make_strategy
from .strategies.base import Strategy


def build_context(settings: Settings, strategy: Strategy) -> RunContext:
    """Load what the strategy needs (models are shared per process)."""
    from models import registry

    if settings.judge == "t5" and strategy.name != "direct":
        from models.judges.t5_onnx import check_folder

        check_folder(settings.judge_path)  # a bad judge folder fails before minutes of model loading
    retriever = None
    if strategy.needs_index:
        from index_builder.store import IndexStore

        from .retrieval.retriever import HybridRetriever

        store = IndexStore.open(settings.index_path)  # a missing index fails before any model loads
        if store.passages.count_rows() == 0:  # else the reader answers from nothing, "resolved by passages"
            raise NoIndex(f"the index at {settings.index_path} is empty; add a folder with "
                                 "`assistant index add FOLDER` (or ask without it: --strategy direct)")
        sources = None
        if settings.collection is not None:
            from index_builder.collections import check_known

            sources = check_known(store.meta, settings.collection)  # an unknown one: before any model loads
        retriever = HybridRetriever(store, registry.get_embedder(settings), sources=sources)
    relevance = None
    if strategy.needs_index and settings.relevance_judge == "trained" and strategy.reads_relevance_judge:
        relevance = registry.get_relevance_judge(settings)  # a broken judge file fails before the reader loads
    reader = registry.get_reader(settings)
    judge = OnFirstUse(lambda: registry.get_judge(settings)) if strategy.name != "direct" else None
    return RunContext(settings=settings, reader=reader, judge=judge, retriever=retriever, relevance=relevance)


class OnFirstUse:
    """A model loaded when a strategy first asks it something: rag never asks the judge (a T5
    judge takes seconds to load; its folder was checked above, before any load)."""

    def __init__(self, load):
        self._load, self._model = load, None

    def __getattr__(self, name: str):
        if self._model is None:
            self._model = self._load()
        return getattr(self._model, name)


def run_question(question: str, strategy: Strategy | str | None, ctx: RunContext) -> Iterator[Event]:
    question = " ".join((question or "").split())
    if not question:
        raise AssistantError("the question is empty; ask something, e.g. assistant ask \"What is X?\"")
    if not isinstance(strategy, Strategy):
        strategy = make_strategy(strategy)
    started = time.perf_counter()
    ctx.begin_question()
    yield Started(step=ctx.step(), question=question, strategy=strategy.name, options=dict(strategy.options))
    try:
        result = yield from strategy.run(question, ctx)
    except BudgetExceeded as exc:
        yield Note(step=ctx.step(), message=f"{exc}; stopping with what is known so far")
        result = Result("unknown", resolved_by="budget")
    usage = ctx.reader_usage()
    counts = {"retrievals": ctx.retrievals, "sub_questions": ctx.sub_questions, "reader_calls": usage["calls"],
              "prompt_tokens": usage["prompt_tokens"], "evaluated_tokens": usage["evaluated_tokens"],
              "completion_tokens": usage["completion_tokens"]}
    text = answer_text(result.text)  # without a sources block copied from a document
    # what the answer rests on: a stage that labelled it (a re-read, a folder answer) decided it already
    cited = getattr(result, "attribution", None)
    if cited is None:
        cited = strategy.attribution(text, result, question, ctx)
    yield Answer(step=ctx.step(), question=question, text=text, citations=cited.cited,
                 resolved_by=result.resolved_by, counts=counts,
                 seconds=round(time.perf_counter() - started, 3), marked_text=cited.marked_text,
                 passages_read=[p.id for p in result.citations], grounding=cited.grounding,
                 closest=cited.closest, finish=ctx.answer_finish)
