"""Answer metrics as the papers compute them: SQuAD-normalised EM and token F1 (best over the
gold aliases), substring accuracy (a gold alias appears in the prediction), yes/no accuracy."""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from assistant.answering.answer_norm import squad_normalize  # shared with the strategies that vote on answers


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    pred = squad_normalize(prediction)
    return float(any(pred == squad_normalize(g) for g in golds))


def _f1(prediction: str, gold: str) -> float:
    pred_tokens = squad_normalize(prediction).split()
    gold_tokens = squad_normalize(gold).split()
    if not pred_tokens or not gold_tokens:
        return float(pred_tokens == gold_tokens)
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def f1(prediction: str, golds: Sequence[str]) -> float:
    return max((_f1(prediction, g) for g in golds), default=0.0)


def substring_match(prediction: str, golds: Sequence[str]) -> float:
    """1 when a normalised gold alias occurs in the normalised prediction, on word boundaries."""
    pred = f" {squad_normalize(prediction)} "
    return float(any(squad_normalize(g) and f" {squad_normalize(g)} " in pred for g in golds))


def yes_no(prediction: str) -> str | None:
    """The yes/no a prediction commits to: its first 'yes' or 'no' word, else None."""
    for word in squad_normalize(prediction).split():
        if word in ("yes", "no"):
            return word
    return None


def yes_no_accuracy(prediction: str, golds: Sequence[str]) -> float:
    said = yes_no(prediction)
    return float(said is not None and any(said == squad_normalize(g) for g in golds))


def score(prediction: str, golds: Sequence[str], kind: str = "span") -> dict[str, float]:
    """All metrics of one prediction; `acc` is yes/no accuracy for yes/no questions, else
    substring accuracy."""
    scores = {"em": exact_match(prediction, golds), "f1": f1(prediction, golds),
              "substring": substring_match(prediction, golds)}
    scores["acc"] = yes_no_accuracy(prediction, golds) if kind == "yes/no" else scores["substring"]
    return scores
