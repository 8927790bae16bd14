"""Ranking a wide candidate pool with the trained relevance judge; the reader reads only the top.

Hybrid search's top 10 holds both supporting paragraphs of a two-hop question far more often than
its top 5 (EVALUATION.md, "Retrieval: the passages handed to the reader"); a trained judge over a
wider pool can put them in the top few, and fewer, better passages mean shorter prompts, which on a
CPU is most of an answer's time.

When the judge folder carries a passage selector (selector.json, models/passage_selector.py),
the selector decides: it may first search again for the missing hop (question + a top passage,
no reader call), then scores the merged pool from features that see the links between passages
(assistant/retrieval/pool_select.py); the cross-encoder is then one of its features, or not used at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generator, Sequence

from ..context import RunContext
from ..events.core import Event, Passage, Relevance, shown


@dataclass
class Ranked:
    """The pool ordered by the judge: `kept` is what the reader reads."""

    kept: list[Passage]
    above_threshold: int  # how many passages the judge found relevant (0: RA-ISF decomposes)
    scores: list[float] = field(default_factory=list)  # the whole pool's scores, best first
    by_id: dict[str, float] = field(default_factory=dict)  # each pool passage's score
    pool: list[Passage] = field(default_factory=list)  # the whole pool, best first
    found: list = field(default_factory=list)  # with a selector: how each of `pool` was found (PoolPassage)

    def support(self, rank: int) -> float:
        """The score of the passage at `rank` (1-based) of the pool, 0 past its end: with the
        selector, the probability that it is a supporting passage."""
        return self.scores[rank - 1] if 0 < rank <= len(self.scores) else 0.0


def _pool_scores(ctx: RunContext, question: str, pool: Sequence[Passage], parent: int | None,
                 depth: int) -> Generator[Event, None, tuple[list[Passage], list, list[float], float, str]]:
    """(pool, possibly grown by expansion searches; how each was found, with a selector; a score
    per passage; the threshold; who scored)."""
    from models.judges.relevance import passage_text

    judge = ctx.relevance
    selector = getattr(judge, "selector", None)
    if selector is None:
        scores = judge.score(question, [passage_text(p.title, p.text) for p in pool])
        return list(pool), [], scores, judge.threshold, judge.name
    from .pool_select import expansion_queries, merge_pool

    expansions = []
    if ctx.retriever is not None:
        for query in expansion_queries(question, pool, selector.expansions):
            expansions.append((yield from ctx.retrieve(query, k=selector.expansion_depth, parent=parent, depth=depth)))
    merged, found = merge_pool(pool, expansions)
    return merged, found, _selector_scores(judge, question, merged, found), selector.threshold, \
        f"{judge.name} + selector"


def _selector_scores(judge, question: str, pool: Sequence[Passage], found: Sequence) -> list[float]:
    from models.judges.relevance import passage_text

    from .pool_select import selector_scores

    judged = judge.score(question, [passage_text(p.title, p.text) for p in pool]) if judge.selector.uses_judge else None
    return selector_scores(judge.selector, question, found, judged)


def kept_count(settings, above: int, pool: int) -> int:
    """How many of the ranked pool the reader reads: those at or above the threshold (`above`),
    but at least min_passages and at most max_passages."""
    return min(settings.max_passages, max(settings.min_passages, above), pool)


def judge_pool(ctx: RunContext, question: str, pool: Sequence[Passage], parent: int | None = None,
               depth: int = 0) -> Generator[Event, None, Ranked]:
    """Score every pool passage, yield a Relevance event each (best first), keep the top ones.

    Kept: the passages at or above the threshold, but at least `min_passages` and at most
    `max_passages` (settings); with none above the threshold the top min_passages are still kept,
    and `above_threshold` = 0 tells RA-ISF that nothing was judged relevant."""
    pool, found, scores, threshold, name = yield from _pool_scores(ctx, question, pool, parent, depth)
    return (yield from _rank(ctx, question, pool, found, scores, threshold, name, parent, depth))


def judge_union(ctx: RunContext, question: str, first: Ranked, searches: Sequence[Sequence[Passage]],
                parent: int | None = None, depth: int = 0) -> Generator[Event, None, Ranked]:
    """One pool of everything found for `question`: the first hop's judged pool (with its
    expansion searches) and the passages later searches added (the sub-questions'), ranked by the
    selector against the question itself, so the answer reads the top of all of it.

    A later search's passages enter as the selector's expansion searches do (their rank in that
    search, to its depth): a sub-question's search, like an expansion, looks for the other hop."""
    from .pool_select import add_searches

    judge = ctx.relevance
    selector = getattr(judge, "selector", None)
    depth_searched = selector.expansion_depth if selector is not None else ctx.settings.pool
    pool, found = add_searches(first.pool, first.found, searches, depth_searched)
    if selector is None or len(first.found) != len(first.pool):  # no selector's view: the judge's scores alone
        from models.judges.relevance import passage_text

        scores = judge.score(question, [passage_text(p.title, p.text) for p in pool])
        return (yield from _rank(ctx, question, pool, [], scores, judge.threshold, judge.name, parent, depth))
    scores = _selector_scores(judge, question, pool, found)
    return (yield from _rank(ctx, question, pool, found, scores, selector.threshold,
                             f"{judge.name} + selector", parent, depth))


def _rank(ctx: RunContext, question: str, pool: Sequence[Passage], found: Sequence, scores: Sequence[float],
          threshold: float, name: str, parent: int | None, depth: int) -> Generator[Event, None, Ranked]:
    order = sorted(range(len(pool)), key=lambda i: -scores[i])
    above = sum(s >= threshold for s in scores)
    keep = kept_count(ctx.settings, above, len(pool))
    for rank_after, i in enumerate(order, 1):
        yield Relevance(step=ctx.step(), parent=parent, depth=depth, question=question,
                        passage_id=pool[i].id, relevant=rank_after <= keep, score=shown(scores[i]),
                        judge=name, rank_before=i + 1, rank_after=rank_after,
                        threshold=shown(threshold))
    return Ranked(kept=[pool[i] for i in order[:keep]], above_threshold=above,
                  scores=[scores[i] for i in order], by_id={p.id: s for p, s in zip(pool, scores)},
                  pool=[pool[i] for i in order], found=[found[i] for i in order] if found else [])
