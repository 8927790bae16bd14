"""The chain scorer: a small tree ensemble scoring the next passage of a chain, stored as JSON.

It reads features of each candidate under the passages already kept (assistant/retrieval/chain_select.py:
the bridge entity, the question words still open, the selector's score, the hop search's rank)
and gives P(supporting and not yet kept). `stop` ends the chain; `max_hops` bounds its searches.
Made by lab/chain_recall.py --write (research/judge_training/chain_fit.py); the file sits in
the judge folder (chain.json). Plain JSON, evaluated in numpy, like the passage selector.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from models.errors import ModelError

from .passage_selector import TreeEnsemble, sigmoid

CHAIN_FILE = "chain.json"
_HOW = "reinstall the package, or rebuild it with `python lab/chain_recall.py --write FOLDER`"


class ChainScorer:
    def __init__(self, folder: Path | str, name: str = CHAIN_FILE):
        path = Path(folder).expanduser() / Path(str(name)).name
        if not path.is_file():
            raise ModelError(f"chain scorer file missing: {path} ({_HOW})")
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
            self.features = tuple(str(f) for f in spec["features"])
            self.model = TreeEnsemble(spec["model"], len(self.features))
            self.stop = float(spec["stop"])
            self.max_hops = int(spec.get("max_hops", 4))
            self.search_depth = int(spec.get("search_depth", 15))
        except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, IndexError) as exc:
            raise ModelError(f"chain scorer file {path} is unreadable ({type(exc).__name__}: "
                             f"{str(exc)[:120]}); {_HOW}") from None
        if not 0.0 <= self.stop <= 1.0 or not 1 <= self.max_hops <= 8:
            raise ModelError(f"chain scorer file {path} has a stop outside 0-1 or max_hops outside 1-8; {_HOW}")
        self.spec = spec
        self.path = path

    def check_features(self, names: Sequence[str]) -> None:
        if tuple(names) != self.features:
            raise ModelError(f"chain scorer {self.path} was trained on other features than this version "
                             f"computes; {_HOW}")

    def probabilities(self, rows) -> list[float]:
        return [float(v) for v in sigmoid(self.model.log_odds(rows))] if len(rows) else []
