"""The second-stage passage selector: small tree ensembles over pool features, stored as JSON.

The relevance judge reads one (question, passage) pair at a time; the selector also sees the
pool (assistant/retrieval/pool_features.py): search rank, question coverage, titles named in the question
or in other high-ranked passages. Two stages: the first ranks the pool from the search's order,
the second re-reads the links between passages under the first stage's order. Made by
`assistant judge train-selector`; the file sits in the judge folder (selector.json).

Plain JSON, evaluated in numpy: no pickle, nothing to execute, a few milliseconds per pool.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from models.errors import ModelError

SELECTOR_FILE = "selector.json"
_HOW = "reinstall the package, or rebuild it with `assistant judge train-selector --judge FOLDER`"


class TreeEnsemble:
    """Gradient-boosted regression trees on the log-odds (sklearn's GradientBoostingClassifier)."""

    def __init__(self, spec: dict, n_features: int):
        import numpy as np

        self.init = float(spec["init"])
        self.rate = float(spec["learning_rate"])
        self.trees = []
        for tree in spec["trees"]:
            arrays = {name: np.asarray(tree[name], dtype=np.float64 if name in ("threshold", "value") else np.int64)
                      for name in ("feature", "threshold", "left", "right", "value")}
            sizes = {len(a) for a in arrays.values()}
            nodes = len(arrays["feature"])
            if len(sizes) != 1 or not nodes:
                raise ValueError("tree arrays differ in length")
            inner = arrays["left"] >= 0
            if (inner & ((arrays["feature"] < 0) | (arrays["feature"] >= n_features))).any() or \
                    (arrays["left"] >= nodes).any() or (arrays["right"] >= nodes).any() or \
                    (inner & (arrays["right"] < 0)).any():
                raise ValueError("a tree node points outside the tree or the features")
            self.trees.append(arrays)
        # all trees side by side, padded to one width: a walk is at most `width` steps over (trees x rows)
        width = max(len(t["feature"]) for t in self.trees)
        self.steps = width  # a walk ends at the leaves long before; the bound only stops a damaged file

        def stack(name, fill):
            return np.stack([np.pad(t[name], (0, width - len(t[name])), constant_values=fill) for t in self.trees])

        self.feature, self.threshold = stack("feature", 0), stack("threshold", 0.0)
        self.left, self.right, self.value = stack("left", -1), stack("right", -1), stack("value", 0.0)
        self.feature = np.maximum(self.feature, 0)  # leaves carry -2: never read, but must index

    def log_odds(self, x) -> "np.ndarray":
        import numpy as np

        x = np.asarray(x, dtype=np.float64)
        trees = np.arange(len(self.trees))[:, None]
        node = np.zeros((len(self.trees), len(x)), dtype=np.int64)
        rows = np.arange(len(x))[None, :]
        for _ in range(self.steps):
            left = self.left[trees, node]
            inner = left >= 0
            if not inner.any():
                break
            go_left = x[rows, self.feature[trees, node]] <= self.threshold[trees, node]
            node = np.where(inner, np.where(go_left, left, self.right[trees, node]), node)
        return self.init + self.rate * self.value[trees, node].sum(0)


class PassageSelector:
    """The selector's stages, feature names, keep-threshold and expansion searches, from selector.json."""

    def __init__(self, folder: Path | str, name: str = SELECTOR_FILE):
        path = Path(folder).expanduser() / Path(str(name)).name  # a bare file name, inside the folder
        if not path.is_file():
            raise ModelError(f"passage selector file missing: {path} ({_HOW})")
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
            self.features = tuple(str(name) for name in spec["features"])
            self.stages = [TreeEnsemble(stage, len(self.features)) for stage in spec["stages"]]
            self.threshold = float(spec["threshold"])
            self.uses_judge = bool(spec.get("uses_judge", False))
            self.expansions = int(spec.get("expansions", 0))
            self.expansion_depth = int(spec.get("expansion_depth", 15))
            # whether the kept passages hold all the support: the rank-th best score against a cut
            sufficient = spec.get("sufficient") or {}
            self.sufficient_rank = int(sufficient.get("rank", 2))
            cut = sufficient.get("threshold")
            self.sufficient_threshold = None if cut is None else float(cut)
        except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, IndexError) as exc:
            raise ModelError(f"passage selector file {path} is unreadable ({type(exc).__name__}: "
                             f"{str(exc)[:120]}); {_HOW}") from None
        if not self.stages or not 0.0 <= self.threshold <= 1.0:
            raise ModelError(f"passage selector file {path} has no stages or a threshold outside 0-1; {_HOW}")
        self.spec = spec
        self.path = path

    def check_features(self, names: Sequence[str]) -> None:
        if tuple(names) != self.features:
            raise ModelError(f"passage selector {self.path} was trained on other features than this version "
                             f"computes; {_HOW}")


def sigmoid(values):
    import numpy as np

    return 1.0 / (1.0 + np.exp(-np.clip(values, -40, 40)))
