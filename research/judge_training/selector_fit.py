"""Fitting the two-stage passage selector on pools with labels, and writing it as plain JSON.

Stage 1 ranks a pool from the search's order; stage 2 gets the same features with the links
("named by a high-ranked other passage") re-read under stage 1's order. Stage 2 trains on
stage 1's out-of-fold scores, so it learns how far to trust them on questions stage 1 never saw.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

GBM = {"n_estimators": 100, "max_depth": 3, "learning_rate": 0.08, "subsample": 0.8, "min_samples_leaf": 20}
FOLDS = 5


@dataclass
class LabelledPool:
    """One question's pool: features come from a function of the first-stage ranking scores."""
    question_id: str
    features: Callable[[Sequence[float]], np.ndarray]  # first-ranking scores -> rows x features
    search_first: list[float]  # the search's order as ranking scores
    labels: np.ndarray  # 1 supporting, per passage
    support: int  # supporting paragraphs of the question (some may be missing from the pool)
    keys: list[str]  # paragraph key per passage
    support_keys: set[str]


def fold_of(question_id: str, folds: int = FOLDS) -> int:
    return int.from_bytes(hashlib.sha1(question_id.encode("utf-8")).digest()[:4], "big") % folds


def fit_gbm(x: np.ndarray, y: np.ndarray, seed: int):
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(random_state=seed, **GBM).fit(x, y)


def gbm_json(model) -> dict:
    """sklearn's GradientBoostingClassifier (binary) as arrays that models.judges.passage_selector reads."""
    init = model.init_.class_prior_[1]
    trees = []
    for (estimator,) in model.estimators_:
        t = estimator.tree_
        trees.append({"feature": t.feature.tolist(), "threshold": [round(float(v), 7) for v in t.threshold],
                      "left": t.children_left.tolist(), "right": t.children_right.tolist(),
                      "value": [round(float(v), 7) for v in t.value[:, 0, 0]]})
    return {"init": float(np.log(init / (1 - init))), "learning_rate": model.learning_rate,
            "max_depth": model.max_depth, "trees": trees}


def stage_rows(pools: Sequence[LabelledPool], firsts: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray]:
    x = np.vstack([p.features(first) for p, first in zip(pools, firsts)])
    y = np.concatenate([p.labels for p in pools])
    return x, y


def out_of_fold(pools: Sequence[LabelledPool], firsts, seed: int) -> list[np.ndarray]:
    """Each pool scored by a model fitted on the other folds."""
    scores: list[np.ndarray | None] = [None] * len(pools)
    folds = [fold_of(p.question_id) for p in pools]
    for fold in range(FOLDS):
        train = [i for i, f in enumerate(folds) if f != fold]
        test = [i for i, f in enumerate(folds) if f == fold]
        model = fit_gbm(*stage_rows([pools[i] for i in train], [firsts[i] for i in train]), seed)
        for i in test:
            scores[i] = model.predict_proba(pools[i].features(firsts[i]))[:, 1]
    return scores  # type: ignore[return-value]


def fit_two_stages(pools: Sequence[LabelledPool], seed: int) -> tuple[list, list[np.ndarray]]:
    """(the two fitted stages, each pool's out-of-fold stage-2 scores for calibration and metrics)."""
    first = [p.search_first for p in pools]
    stage1_oof = out_of_fold(pools, first, seed)
    stage2_oof = out_of_fold(pools, stage1_oof, seed)
    stage1 = fit_gbm(*stage_rows(pools, first), seed)
    stage2 = fit_gbm(*stage_rows(pools, stage1_oof), seed)
    return [stage1, stage2], stage2_oof
