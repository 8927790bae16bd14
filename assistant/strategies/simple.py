"""The two baselines: closed-book (`direct`) and retrieve-then-read (`rag`)."""
from __future__ import annotations

from .. import prompts
from ..context import RunContext
from .base import Strategy, StrategyRun, generate_answer


class Direct(Strategy):
    """Closed book: the reader answers from what it knows."""

    name = "direct"
    needs_index = False

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        return (yield from generate_answer(ctx, prompts.closed_book(question), question, "closed-book"))


class Rag(Strategy):
    """Retrieve k passages and answer from all of them."""

    name = "rag"

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        passages = yield from ctx.retrieve(question)
        return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                           "passages", citations=passages))
