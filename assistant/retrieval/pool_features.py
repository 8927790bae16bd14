"""Features of each passage of a search pool, for the second-stage passage selector.

A (question, passage) cross-encoder cannot see the second hop of a multi-hop question: the bridge
paragraph often shares no word with the question, but its title (an entity) is named in the
first-hop paragraph; in a comparison question both titles are named in the question. These
features let a small trained model see that, next to the search's own order and the judge's score:
how the passage ranked, how much of the question it covers, whether its title is in the question,
and whether a high-ranked *other* passage names it (or it names them).

`pool_features(question, pool, first, judge)` -> one row per passage, columns FEATURES. `first`
is a ranking score per passage (the search's, or a first selector's): "high-ranked other
passage" means high under it, so a second stage can re-read the links under a better order.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from .settings import POOL

_WORD = re.compile(r"\w+")
_PAREN = re.compile(r"\s*\([^)]*\)\s*$")  # "Kiss and Tell (1945 film)" -> "Kiss and Tell"
STOPWORDS = frozenset("""a an the of in on at to for from by with and or but is are was were be been being
which who whom whose what when where why how that this these those it its as into than then there their
his her he she they them did do does has have had not no yes same both either also one first""".split())


@dataclass(frozen=True)
class PoolPassage:
    """A pool member as the selector sees it."""
    title: str
    text: str
    search_rank: int  # 0-based rank in the search that found it (the first pool, else its expansion)
    search_score: float  # that search's fused score
    expansion: int = 0  # 0: the question's own search; n: found by the n-th expansion search


FEATURES = (
    "search_rank_inv", "search_score_rel", "from_expansion",
    "judge", "judge_rank_inv", "judge_z",
    "first_rank_inv",
    "title_in_question", "title_words_in_question", "question_words_in_passage", "question_idf_in_passage",
    "named_by_top1", "named_by_top3", "named_by_top_weighted",
    "names_top1", "names_top3", "names_top_weighted",
    "words",
)


def lowercase_words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in lowercase_words(text) if w not in STOPWORDS and len(w) > 1}


def clean_title(title: str) -> str:
    return " ".join(lowercase_words(_PAREN.sub("", title)))


def _mentions(haystack: str, title: str) -> bool:
    """A whole-word occurrence of the (cleaned) title in an already word-joined text."""
    return len(title) >= POOL.min_title_chars and f" {title} " in haystack


def _inverse_ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: -values[i])
    inverse = [0.0] * len(values)
    for rank, i in enumerate(order):
        inverse[i] = 1.0 / (1 + rank)
    return inverse


def pool_features(question: str, pool: Sequence[PoolPassage], first: Sequence[float],
                  judge: Sequence[float]) -> list[list[float]]:
    """One row of FEATURES per pool passage, in pool order."""
    n = len(pool)
    if n == 0:
        return []
    q_joined = f" {' '.join(lowercase_words(question))} "
    q_words = content_words(question)
    titles = [clean_title(p.title) for p in pool]
    joined = [f" {' '.join(lowercase_words(p.title + ' ' + p.text))} " for p in pool]
    bags = [content_words(p.title + " " + p.text) for p in pool]
    # idf over the pool: a question word every passage holds tells nothing
    idf = {w: math.log((n + 1) / (1 + sum(w in bag for bag in bags))) + 1.0 for w in q_words}
    idf_total = sum(idf.values()) or 1.0
    best_search = max((p.search_score for p in pool if p.expansion == 0), default=0.0) or 1.0
    judge_mean = sum(judge) / n
    judge_sd = math.sqrt(sum((j - judge_mean) ** 2 for j in judge) / n) or 1.0
    judge_inv, first_inv = _inverse_ranks(judge), _inverse_ranks(first)
    # links between passages: names[i][j] = passage i's text names passage j's title
    names = [[i != j and titles[j] != titles[i] and _mentions(joined[i], titles[j]) for j in range(n)]
             for i in range(n)]
    top = sorted(range(n), key=lambda i: -first[i])
    rows = []
    for i, p in enumerate(pool):
        title_words = content_words(titles[i])
        others = [j for j in top if j != i]
        named_by = [j for j in others if names[j][i]]
        names_out = [j for j in others if names[i][j]]
        nearest = others[:POOL.top_others]
        rows.append([
            1.0 / (1 + p.search_rank), p.search_score / best_search if p.expansion == 0 else 0.0,
            float(p.expansion > 0),
            judge[i], judge_inv[i], (judge[i] - judge_mean) / judge_sd,
            first_inv[i],
            float(_mentions(q_joined, titles[i])),
            len(title_words & q_words) / len(title_words) if title_words else 0.0,
            len(q_words & bags[i]) / len(q_words) if q_words else 0.0,
            sum(idf[w] for w in q_words & bags[i]) / idf_total,
            float(bool(others) and others[0] in named_by), float(any(j in named_by for j in nearest)),
            sum(first_inv[j] for j in named_by),
            float(bool(others) and others[0] in names_out), float(any(j in names_out for j in nearest)),
            sum(first_inv[j] for j in names_out),
            math.log1p(len(bags[i])),
        ])
    return rows
