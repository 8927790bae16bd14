"""The chain selector in a run: the judged pool's read set chosen again as a chain, in hop order.

`rerank.judge_pool` ranks a pool passage by passage; here the same number of passages is picked
one by one by the trained chain scorer (assistant/retrieval/chain_select.py, models/judges/chain_scorer.py),
each given those already kept, with a search for the next hop after each of the first picks
(question + that passage: no reader call). The read set comes back in hop order, so the answer
prompt shows how the facts connect, and a `ChainSelected` step says which hop found what.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Generator

from .chain_select import CHAIN_FEATURES, ChainCandidate, select_chain
from ..context import RunContext
from ..events.details import ChainHop, ChainSelected
from ..events.core import Event, shown
from .rerank import Ranked


def chain_scorer(ctx: RunContext):
    """The judge folder's chain scorer when it ships one and a selector scored the pool; else None."""
    judge = ctx.relevance
    if getattr(judge, "selector", None) is None:
        return None
    return getattr(judge, "chain", None)


def chain_read_set(ctx: RunContext, question: str, ranking: Ranked, parent: int | None = None,
                   budget: int | None = None, searches: bool = True) -> Generator[Event, None, Ranked]:
    """`ranking` with its `kept` (or the top `budget`) re-chosen as a chain; unchanged when the
    judge has no chain scorer or the pool was not scored by the selector."""
    scorer = chain_scorer(ctx)
    if scorer is None or not ranking.pool or len(ranking.found) != len(ranking.pool):
        return ranking
    scorer.check_features(CHAIN_FEATURES)
    by_id = {p.id: p for p in ranking.pool}
    candidates = [ChainCandidate(p.id, p.title, p.text, s) for p, s in zip(ranking.pool, ranking.scores)]
    made = 0

    def search(query: str):
        nonlocal made
        found = yield from ctx.retrieve(query, k=scorer.search_depth, parent=parent, depth=1)
        made += 1
        for p in found:
            by_id.setdefault(p.id, p)
        return [ChainCandidate(p.id, p.title, p.text, 0.0, False) for p in found]

    picks = yield from select_chain(question, candidates, scorer, budget or len(ranking.kept),
                                    search if searches and ctx.retriever is not None else None)
    hops = [ChainHop(id=p.candidate.key, title=p.candidate.title, hop=p.hop, found_by=p.found_by, bridge=p.bridge,
                     score=shown(p.score), in_chain=p.in_chain) for p in picks]
    yield ChainSelected(step=ctx.step(), parent=parent, summary="Read set chosen as a chain, hop by hop",
                        hops=hops, searches=made)
    return replace(ranking, kept=[by_id[p.candidate.key] for p in picks])
