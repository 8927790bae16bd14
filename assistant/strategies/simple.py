"""The two baselines: closed-book (`direct`) and retrieve-then-read (`rag`)."""
from __future__ import annotations

from models.errors import ConfigError

from ..answering import prompts
from ..context import RunContext
from ..retrieval.rerank import judge_pool
from ..answering.generate import StrategyRun, generate_answer
from .base import Strategy
from dataclasses import dataclass

from .options import StrategyOptions


class Direct(Strategy):
    """Closed book: the reader answers from what it knows."""

    name = "direct"
    needs_index = False

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        return (yield from generate_answer(ctx, prompts.closed_book(question), question, "closed-book"))


class Rag(Strategy):
    """Retrieve k passages and answer from all of them; with `rerank`, retrieve the wide pool and
    answer from the trained judge's top passages ("plain RAG + reranker")."""

    @dataclass(frozen=True)
    class Options(StrategyOptions):
        rerank: bool = False

    name = "rag"

    @property
    def reads_relevance_judge(self) -> bool:
        return self.opts.rerank

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        if self.opts.rerank:
            if ctx.relevance is None:
                raise ConfigError('rag:rerank needs the trained relevance judge (relevance_judge = "trained")')
            pool = yield from ctx.retrieve(question, k=ctx.settings.pool)
            passages = (yield from judge_pool(ctx, question, pool)).kept
        else:
            passages = yield from ctx.retrieve(question)
        return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                           "passages", citations=passages))
