"""Fitting the chain scorer: teacher-forced chain states from training questions -> tree ensemble.

A state is the passages kept so far: none, each supporting passage alone, and each prefix of the
supporting passages in hop order (MuSiQue's question_decomposition; the file's order elsewhere).
Under a state every other candidate is a row, labelled 1 when it is a supporting passage not yet
kept; the hop searches of the state (question + each kept passage) are made as at run time.
`chain_recall` runs the greedy selection (assistant/retrieval/chain_select.py) on questions the model
never saw, for the lab's held-out measurement.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from assistant.retrieval.chain_select import CHAIN_FEATURES, ChainCandidate, ChainView, HopSearches, hop_query, select_chain
from .selector_fit import fit_gbm, fold_of, gbm_json

MAX_HOPS = 4
SEARCH_DEPTH = 15  # a hop search's depth: the selector's expansion depth


@dataclass
class ChainQuestion:
    """One training question: its scored pool, its supporting passages in hop order, and a search."""
    question_id: str
    question: str
    candidates: list[ChainCandidate]  # the merged pool with the selector's (out-of-fold) scores
    support: list[str]  # supporting paragraph keys, in hop order
    group: str = ""  # the dataset it is reported under
    search: Callable[[str], list[ChainCandidate]] = field(default=lambda query: [], repr=False)


def _states(q: ChainQuestion, pool_keys: set[str]) -> list[list[str]]:
    states: list[list[str]] = [[]]
    states += [[k] for k in q.support if k in pool_keys]
    states += [q.support[:n] for n in range(2, len(q.support))]
    unique, seen = [], set()
    for s in states:
        if tuple(s) not in seen:
            seen.add(tuple(s))
            unique.append(s)
    return unique


def state_rows(q: ChainQuestion, hop_searches: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Rows and labels for every state of one question (kept candidates left out)."""
    xs, ys = [], []
    support = set(q.support)
    for state in _states(q, {c.key for c in q.candidates}):
        view = ChainView(q.question, q.candidates)  # afresh: another state's hop searches are not this one's
        searches = HopSearches()
        kept: list[int] = []
        for key in state:
            if key not in view.index:
                break  # a later hop the searches so far did not find: the state cannot arise
            kept.append(view.index[key])
            if hop_searches and len(kept) < MAX_HOPS:
                found = q.search(hop_query(q.question, view.candidates[view.index[key]]))
                view.add(found)
                searches.ranks.append({f.key: rank for rank, f in enumerate(found)})
        if len(kept) < len(state):
            continue
        rows = view.features(kept, searches)
        for i, row in enumerate(rows):
            if i not in kept:
                xs.append(row)
                ys.append(int(view.candidates[i].key in support))
    return np.asarray(xs, dtype=np.float64).reshape(-1, len(CHAIN_FEATURES)), np.asarray(ys, dtype=int)


def fit_scorer(questions: Sequence[ChainQuestion], seed: int = 0, hop_searches: bool = True):
    parts = [state_rows(q, hop_searches) for q in questions]
    x = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    return fit_gbm(x, y, seed)


class FittedScorer:
    """A fitted sklearn model behind the ChainScorer interface (for held-out measurement)."""

    def __init__(self, model, stop: float, max_hops: int = MAX_HOPS):
        self.model, self.stop, self.max_hops = model, stop, max_hops

    def probabilities(self, rows) -> list[float]:
        return list(self.model.predict_proba(np.asarray(rows))[:, 1]) if len(rows) else []


def run_plain(generator):
    """Run a generator to its end, dropping what it yields (a selection whose searches find nothing,
    a pipeline step without its events); its return value."""
    try:
        while True:
            next(generator)
    except StopIteration as done:
        return done.value


def chain_keys(q: ChainQuestion, scorer, budget: int, hop_searches: bool = True) -> list[str]:
    def search(query):
        return q.search(query)
        yield  # a generator with no events: the lab's searches are plain calls

    picks = run_plain(select_chain(q.question, q.candidates, scorer, budget, search if hop_searches else None))
    return [p.candidate.key for p in picks]


def out_of_fold_models(questions: Sequence[ChainQuestion], folds: int, seed: int = 0,
                       hop_searches: bool = True) -> dict[int, object]:
    """Fold -> a model fitted on the other folds' questions (folds by a hash of the question id)."""
    models = {}
    for fold in range(folds):
        train = [q for q in questions if fold_of(q.question_id, folds) != fold]
        models[fold] = fit_scorer(train, seed, hop_searches)
    return models


def chain_spec(model, stop: float, training: dict) -> dict:
    return {"kind": "gradient-boosted trees over chain features", "features": list(CHAIN_FEATURES),
            "model": gbm_json(model), "stop": stop, "max_hops": MAX_HOPS, "search_depth": SEARCH_DEPTH,
            "training": training}
