"""How well a ranking hands the reader what it needs: support recall at k, and the keep-threshold.

"All supporting paragraphs among the first k" is the measure issue 15 sets: a multi-hop question
is rarely answered from one of its paragraphs, so this bounds what any reader can do with them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


def all_found(ranked_keys: Sequence[str], support: set[str], k: int) -> bool:
    return bool(support) and support <= set(ranked_keys[:k])


def judge_order(keys: Sequence[str], scores: Sequence[float]) -> list[str]:
    """Keys by descending score; ties keep the search order."""
    order = sorted(range(len(keys)), key=lambda i: -scores[i])
    return [keys[i] for i in order]


@dataclass
class Threshold:
    value: float
    precision: float
    recall: float
    f1: float
    kept_per_question: float  # passages at or above it, on average


def best_threshold(pools: Sequence[tuple[Sequence[float], Sequence[bool]]]) -> Threshold:
    """The score cut that maximises F1 of 'supporting' over whole search pools (the run-time
    mix of a few supporting passages among many others), ties to the lower cut (recall)."""
    flat = sorted(((s, bool(y)) for scores, labels in pools for s, y in zip(scores, labels)), key=lambda x: -x[0])
    positives = sum(y for _, y in flat)
    if not flat or not positives:
        return Threshold(0.5, 0.0, 0.0, 0.0, 0.0)
    best, hits = None, 0
    for i, (score, label) in enumerate(flat):
        hits += label
        if i + 1 < len(flat) and flat[i + 1][0] == score:
            continue  # a cut keeps every passage of equal score
        precision, recall = hits / (i + 1), hits / positives
        f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
        if best is None or f1 >= best[0]:
            best = (f1, score, precision, recall, i + 1)
    f1, score, precision, recall, kept = best
    return Threshold(round(score, 6), round(precision, 4), round(recall, 4), round(f1, 4),
                     round(kept / len(pools), 2))


def fit_platt(values: Sequence[float], labels: Sequence[bool], iterations: int = 50) -> tuple[float, float]:
    """(a, b) of P = sigmoid(a * value + b), by maximum likelihood (Newton's method on 2 numbers)."""
    a, b = 1.0, 0.0
    for _ in range(iterations):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(values, labels):
            z = a * x + b
            p = 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
            w = max(p * (1 - p), 1e-9)
            ga += (p - y) * x
            gb += p - y
            haa += w * x * x
            hab += w * x
            hbb += w
        det = haa * hbb - hab * hab
        if abs(det) < 1e-12:
            break
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-8:
            break
    return a, b
