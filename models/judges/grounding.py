"""The grounding check's models, shipped in models/grounding_model/: trees (claim, hop, and claim
with the encoder's score) and the encoder that reads claim and passage together.

Trees: plain JSON evaluated in numpy, like the passage selector: no pickle, a millisecond per answer.
Made by `python -m research.judge_training.grounding_train` (features: assistant/grounding/features.py);
claim_encoder by `python -m research.judge_training.grounding_encoder_fit --ship`.
Encoder (encoder/): a MiniLM cross-encoder, int8 ONNX, run as the relevance judge is
(models.judges.relevance); made by `python -m research.judge_training.grounding_encoder_train`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from models.errors import ModelError

from models.judges.passage_selector import TreeEnsemble, sigmoid

GROUNDING_FILE = "grounding.json"
_HOW = "reinstall the package, or retrain it with `python -m research.judge_training.grounding_train`"
_HOW_ENCODER = ("reinstall the package, or retrain it with "
                "`python -m research.judge_training.grounding_encoder_train` and `grounding_encoder_fit --ship`")
REQUIRED_MODELS = ("claim", "hop")


def shipped_grounding_path() -> Path:
    return Path(__file__).resolve().parent.parent / "grounding_model" / GROUNDING_FILE


def shipped_encoder_path() -> Path:
    return Path(__file__).resolve().parent.parent / "grounding_model" / "encoder"


def load_encoder(folder: Path | str | None = None, n_threads: int | None = None):
    """The grounding encoder (a RelevanceJudge over (claim | question, passage)); a clear error if unusable."""
    from models.judges.relevance import _HOW as RELEVANCE_HOW, RelevanceJudge

    folder = Path(folder) if folder else shipped_encoder_path()
    try:
        return RelevanceJudge(folder, n_threads=n_threads)
    except ModelError as exc:
        what = str(exc).replace(f" ({RELEVANCE_HOW})", "").replace(f"; {RELEVANCE_HOW}", "")
        what = what.replace("relevance judge", "grounding encoder")
        raise ModelError(f"{what}; {_HOW_ENCODER}") from None


class GroundingTrees:
    """score(kind, rows) -> P(supported) per row, for kind "claim", "hop" or "claim_encoder" (claim
    features and the encoder's score); each kind's threshold."""

    def __init__(self, path: Path | str | None = None):
        path = Path(path) if path else shipped_grounding_path()
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
            self.features = {k: tuple(m["features"]) for k, m in spec["models"].items()}
            self.thresholds = {k: float(m["threshold"]) for k, m in spec["models"].items()}
            self.trees = {k: TreeEnsemble(m["trees"], len(self.features[k])) for k, m in spec["models"].items()}
        except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, IndexError) as exc:
            raise ModelError(f"grounding model {path} is unreadable ({type(exc).__name__}: {str(exc)[:120]}); "
                             f"{_HOW}") from None
        if not set(REQUIRED_MODELS) <= set(self.trees):
            raise ModelError(f"grounding model {path} lacks its claim or hop trees; {_HOW}")
        self.path = path

    def check_features(self, kind: str, names: Sequence[str]) -> None:
        if tuple(names) != self.features[kind]:
            raise ModelError(f"grounding model {self.path} was trained on other {kind} features than this "
                             f"version computes; {_HOW}")

    def score(self, kind: str, rows: Sequence[Sequence[float]]) -> list[float]:
        if not rows:
            return []
        return [float(p) for p in sigmoid(self.trees[kind].log_odds(rows))]
