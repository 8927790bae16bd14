"""Choosing the few passages the reader reads from a wide pool: the trained two-stage selector.

`expansion_queries` names the extra searches that look for the missing hop without a reader call
(multi-hop dense retrieval: the question plus one of the first search's top passages, whose text
names the bridge entity); `merge_pool` folds their results into the pool, remembering which
search found each passage, and `add_searches` folds in later searches (the missing hop's);
`selector_scores` runs the selector (models/passage_selector.py) over the pool's features
(pool_features.py), judged against the original question.
"""
from __future__ import annotations

from typing import Sequence

from ..events.core import Passage
from .pool_features import FEATURES, PoolPassage, pool_features
from .settings import POOL


def expansion_queries(question: str, pool: Sequence[Passage], count: int) -> list[str]:
    """Question + title and text of each of the first `count` passages of the search."""
    from models.judges.relevance import passage_text

    return [f"{question} {passage_text(p.title, p.text)}" for p in list(pool)[:count]]


def merge_pool(pool: Sequence[Passage], expansions: Sequence[Sequence[Passage]]
               ) -> tuple[list[Passage], list[PoolPassage]]:
    """The first pool, then each expansion's new passages; with how each was found."""
    seen: set[str] = set()
    merged: list[Passage] = []
    found: list[PoolPassage] = []
    for origin, results in enumerate([pool, *expansions]):
        for rank, p in enumerate(results):
            if p.id in seen:
                continue
            seen.add(p.id)
            merged.append(p)
            found.append(PoolPassage(p.title, p.text, rank, p.score, origin))
    return merged, found


def add_searches(pool: Sequence[Passage], found: Sequence[PoolPassage], searches: Sequence[Sequence[Passage]],
                 depth: int) -> tuple[list[Passage], list[PoolPassage]]:
    """A judged pool (and how each passage was found) plus the new passages of later searches
    (the missing hop's sub-questions), each entered as an expansion search's find: its rank in
    that search, up to `depth` (the expansion depth, the range the selector's features know)."""
    pool, found = list(pool), list(found)
    seen = {p.id for p in pool}
    for search in searches:
        for rank, p in enumerate(list(search)[:depth]):
            if p.id not in seen:
                seen.add(p.id)
                pool.append(p)
                found.append(PoolPassage(p.title, p.text, rank, p.score, 1))
    return pool, found


def search_order(found: Sequence[PoolPassage]) -> list[float]:
    """The search's order as ranking scores: the first pool by rank, then the expansions."""
    return [-(p.search_rank + POOL.expansion_offset * p.expansion) for p in found]


def selector_scores(selector, question: str, found: Sequence[PoolPassage],
                    judge_scores: Sequence[float] | None = None) -> list[float]:
    """P(supporting) per passage from the selector's stages, each re-reading the links between
    passages under the previous stage's order."""
    import numpy as np

    from models.judges.passage_selector import sigmoid

    selector.check_features(FEATURES)
    if not found:
        return []
    judge = list(judge_scores) if judge_scores is not None else [0.0] * len(found)
    first = search_order(found)
    for stage in selector.stages:
        x = np.asarray(pool_features(question, found, first, judge), dtype=np.float64)
        first = list(sigmoid(stage.log_odds(x)))
    return [float(v) for v in first]
