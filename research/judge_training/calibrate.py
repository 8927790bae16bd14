"""Thresholds for the exported judge: the P(positive) cut that maximises held-out accuracy.

Calibrated on the model as deployed (the ONNX files, int8 if quantized), since quantization
shifts scores.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from models.judges import t5_format as fmt
from models.judges.judge import two_label_verdict
from models.judges.t5_onnx import DEFAULT_THRESHOLD, Calibration

from .data import JudgeExample

_TASK_FIELDS = {fmt.KNOWS: "knows_threshold", fmt.RELEVANCE: "relevance_threshold"}
_BATCH = 16


def best_threshold(scores: Sequence[float], positives: Sequence[bool]) -> tuple[float, float]:
    """(threshold, accuracy): candidates are midpoints between sorted scores, plus 0.5;
    ties go to the candidate nearest 0.5 so that thin data moves the default least."""
    if not scores:
        return DEFAULT_THRESHOLD, 0.0
    ordered = sorted(set(scores))
    candidates = {DEFAULT_THRESHOLD, 0.0, 1.0 + 1e-9}
    candidates.update((a + b) / 2 for a, b in zip(ordered, ordered[1:]))

    def accuracy(t: float) -> float:
        return sum((s >= t) == p for s, p in zip(scores, positives)) / len(scores)

    best = max(candidates, key=lambda t: (accuracy(t), -abs(t - DEFAULT_THRESHOLD)))
    return min(max(best, 0.0), 1.0), accuracy(best)


def score_examples(judge, examples: list[JudgeExample]) -> list[float]:
    """P(positive label) for two-label examples of one task, in batches."""
    scores: list[float] = []
    for start in range(0, len(examples), _BATCH):
        batch = examples[start:start + _BATCH]
        pairs = judge.label_logprobs(batch[0].task, [e.model_input() for e in batch])
        scores.extend(two_label_verdict(yes, no).score for yes, no in pairs)
    return scores


def calibrate(folder: Path, held_out: list[JudgeExample]) -> Calibration:
    """Measure thresholds on held-out data with the exported judge and store them in judge.json."""
    from models.judges.t5_judge import T5Judge

    judge = T5Judge(folder)
    calibration = judge.calibration
    for task, field_name in _TASK_FIELDS.items():
        examples = [e for e in held_out if e.task == task]
        if not examples:
            continue
        scores = score_examples(judge, examples)
        threshold, accuracy = best_threshold(scores, [bool(e.positive) for e in examples])
        setattr(calibration, field_name, round(threshold, 6))
        default_accuracy = sum((s >= DEFAULT_THRESHOLD) == e.positive for s, e in zip(scores, examples)) / len(examples)
        calibration.held_out[task] = {"examples": len(examples), "accuracy": round(accuracy, 4),
                                      "accuracy_at_0.5": round(default_accuracy, 4)}
    calibration.save(folder)
    return calibration
