"""Choosing the read set as a chain: passages picked one by one, each scored given those kept.

A passage for a later hop looks irrelevant to the question until an earlier hop is known: its
title (the bridge entity) is named in a kept passage, it covers the question words the kept
passages leave open, and a search with the question plus the kept passage finds it (multi-hop
dense retrieval; no reader call). `chain_features` computes those for every candidate under the
passages kept so far; `select_chain` picks greedily with a trained scorer
(models/judges/chain_scorer.py), searching again after each of the first hops, and says which
hop found each passage. Trained by research/judge_training/chain_fit.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Generator, Sequence

from .pool_features import STOPWORDS, clean_title, content_words, lowercase_words
from .settings import POOL

CHAIN_FEATURES = (
    "selector", "selector_rank_inv", "in_pool", "hop",
    "title_named_by_kept", "names_kept_title", "shared_names_with_kept",
    "open_question_idf", "question_idf", "title_in_question",
    "hop_search_rank_inv", "hop_search_last_inv", "overlap_with_kept",
)


@dataclass(frozen=True)
class ChainCandidate:
    """A passage the chain may pick: `key` its identity, `selector` its selector score (0 when only
    a hop search found it)."""
    key: str
    title: str
    text: str
    selector: float = 0.0
    in_pool: bool = True


@dataclass
class ChainPick:
    candidate: ChainCandidate
    hop: int  # 1-based position in the chain
    score: float  # the chain scorer's probability when picked
    found_by: str  # "pool" (the first search and the selector) or "hop N search" (question + hop N's passage)
    bridge: str = ""  # a kept passage's title it names or is named by, if any
    in_chain: bool = True  # False: picked after the chain looked complete (filling the read budget)


@dataclass
class HopSearches:
    """The searches made with the question plus each kept passage: candidate key -> rank, per search."""
    ranks: list[dict[str, int]] = field(default_factory=list)


def _names(text: str) -> set[str]:
    """Capitalised words not at a sentence start and not stopwords: a cheap stand-in for entity names."""
    tokens = text.split()
    found = set()
    for i, token in enumerate(tokens):
        word = token.strip(".,;:!?\"'()[]")
        if len(word) > 2 and word[:1].isupper() and word.lower() not in STOPWORDS and \
                not (i and tokens[i - 1].endswith(".")):
            found.add(word.lower())
    return found


def _mentions(joined: str, title: str) -> bool:
    return len(title) >= POOL.min_title_chars and f" {title} " in joined


class ChainView:
    """What the features need of one question's candidates, computed once."""

    def __init__(self, question: str, candidates: Sequence[ChainCandidate]):
        self.question = question
        self.candidates = list(candidates)
        self.q_joined = f" {' '.join(lowercase_words(question))} "
        self.q_words = content_words(question)
        self.q_names = _names(question)
        self.titles = [clean_title(c.title) for c in self.candidates]
        # each passage's words less its own title's: a title inside it ("Psychotherapy" in "Journal of
        # Psychotherapy Integration") is no mention of another passage
        self.joined = [f" {' '.join(lowercase_words(c.text))} ".replace(f" {t} ", " | ") if t else f" {' '.join(lowercase_words(c.text))} "
                       for c, t in zip(self.candidates, self.titles)]
        self.bags = [content_words(c.title + " " + c.text) for c in self.candidates]
        self.names = [_names(c.title + " " + c.text) - self.q_names for c in self.candidates]
        n = len(self.candidates)
        self.idf = {w: math.log((n + 1) / (1 + sum(w in bag for bag in self.bags))) + 1.0 for w in self.q_words}
        order = sorted(range(n), key=lambda i: (not self.candidates[i].in_pool, -self.candidates[i].selector))
        self.selector_rank = {i: rank for rank, i in enumerate(order)}
        self.index = {c.key: i for i, c in enumerate(self.candidates)}

    def add(self, extra: Sequence[ChainCandidate]) -> None:
        """Passages a hop search found that the pool lacked (selector score 0, ranked last)."""
        new = [c for c in extra if c.key not in self.index]
        if new:
            self.__init__(self.question, self.candidates + new)

    def bridge(self, i: int, kept: Sequence[int]) -> str:
        for j in kept:
            if _mentions(self.joined[j], self.titles[i]) or _mentions(self.joined[i], self.titles[j]):
                return self.candidates[j].title
        return ""

    def features(self, kept: Sequence[int], searches: HopSearches) -> list[list[float]]:
        """One row of CHAIN_FEATURES per candidate (kept ones included; the caller skips them)."""
        covered = set().union(*(self.bags[j] for j in kept)) if kept else set()  # the kept passages' words
        open_words = self.q_words - covered
        idf_total = sum(self.idf.values()) or 1.0
        open_total = sum(self.idf[w] for w in open_words) or 1.0
        kept_names = set().union(*(self.names[j] for j in kept)) if kept else set()
        rows = []
        for i, c in enumerate(self.candidates):
            title_words = content_words(self.titles[i])
            hop_ranks = [r[c.key] for r in searches.ranks if c.key in r]
            last = searches.ranks[-1].get(c.key) if searches.ranks else None
            rows.append([
                c.selector, 1.0 / (1 + self.selector_rank[i]), float(c.in_pool), float(min(len(kept), POOL.hop_cap)),
                float(any(_mentions(self.joined[j], self.titles[i]) for j in kept if self.titles[j] != self.titles[i])),
                float(any(_mentions(self.joined[i], self.titles[j]) for j in kept if self.titles[j] != self.titles[i])),
                math.log1p(len(self.names[i] & kept_names)),
                sum(self.idf[w] for w in open_words & self.bags[i]) / open_total if open_words else 0.0,
                sum(self.idf[w] for w in self.q_words & self.bags[i]) / idf_total,
                float(_mentions(self.q_joined, self.titles[i])) if title_words else 0.0,
                1.0 / (1 + min(hop_ranks)) if hop_ranks else 0.0,
                1.0 / (1 + last) if last is not None else 0.0,
                len(self.bags[i] & covered) / (len(self.bags[i]) or 1),
            ])
        return rows


Search = Callable[[str], Generator]  # query -> (events ...) -> candidates found, best first


def hop_query(question: str, passage: ChainCandidate) -> str:
    """The next hop's query without a reader call: the question plus the kept passage."""
    return f"{question} {passage.title}: {passage.text}"


def select_chain(question: str, candidates: Sequence[ChainCandidate], scorer, budget: int,
                 search: Search | None = None) -> Generator[object, None, list[ChainPick]]:
    """Pick up to `budget` passages greedily, each by the scorer given the ones kept; after each of
    the first `scorer.max_hops - 1` picks, search with the question plus that passage (when
    `search` is given) and let what it finds compete. Once the best score falls below
    `scorer.stop` the chain is complete: the rest of the budget is filled in selector order."""
    import numpy as np

    view = ChainView(question, candidates)
    searches = HopSearches()
    picks: list[ChainPick] = []
    kept: list[int] = []
    found_by: dict[str, str] = {}
    complete = False
    while len(picks) < min(budget, len(view.candidates)):
        if complete:
            i = min((i for i in range(len(view.candidates)) if i not in kept), key=view.selector_rank.get)
            picks.append(ChainPick(view.candidates[i], len(picks) + 1, 0.0, found_by.get(view.candidates[i].key, "pool"),
                                   in_chain=False))
            kept.append(i)
            continue
        scores = scorer.probabilities(np.asarray(view.features(kept, searches), dtype=np.float64))
        i = max((i for i in range(len(view.candidates)) if i not in kept), key=lambda i: scores[i])
        if picks and scores[i] < scorer.stop:
            complete = True
            continue
        c = view.candidates[i]
        picks.append(ChainPick(c, len(picks) + 1, float(scores[i]), found_by.get(c.key, "pool"), view.bridge(i, kept)))
        kept.append(i)
        if search is not None and len(picks) < scorer.max_hops and len(picks) < budget:
            found = yield from search(hop_query(question, c))
            for candidate in found:
                found_by.setdefault(candidate.key, f"hop {len(picks)} search" if candidate.key not in view.index
                                    else "pool")
            view.add(found)
            searches.ranks.append({f.key: rank for rank, f in enumerate(found)})
    return picks
