"""How rare each word is in encyclopedic text: the weight of a question's word in the grounding
check's coverage (assistant/grounding/rules.py), shipped in models/grounding_model/word_rarity.json.

A passage about another subject holds a question's common words ("film", "city", "school") and not
its rare ones ("Lutheran", "Nerdist"): counted by rarity, its coverage of the question falls.
The table holds, for each word (normalised as assistant/grounding_features.words writes it) seen in
at least two training paragraphs, the number of paragraphs holding it; a word it lacks is as rare
as a word seen once. Made by `python -m research.judge_training.word_rarity_build`.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from models.errors import ModelError

RARITY_FILE = "word_rarity.json"
_HOW = "reinstall the package, or rebuild it with `python -m research.judge_training.word_rarity_build`"


def shipped_rarity_path() -> Path:
    return Path(__file__).resolve().parent.parent / "grounding_model" / RARITY_FILE


class WordRarity:
    """weight(word): the word's inverse document frequency, log((N + 1) / (df + 1)), over the N
    training paragraphs (0 for a word in every one of them)."""

    def __init__(self, documents: int, counts: Mapping[str, int]):
        if documents < 1:
            raise ValueError("a rarity table needs at least one document")
        self.documents = documents
        self.counts = dict(counts)

    def weight(self, word: str) -> float:
        return math.log((self.documents + 1) / (self.counts.get(word, 0) + 1))

    def to_json(self) -> dict:
        return {"documents": self.documents, "counts": self.counts}

    @classmethod
    def load(cls, path: Path | str | None = None) -> "WordRarity":
        path = Path(path) if path else shipped_rarity_path()
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
            counts = spec["counts"]
            if not isinstance(counts, dict) or not all(isinstance(v, int) for v in counts.values()):
                raise ValueError("counts must map words to whole numbers")
            return cls(int(spec["documents"]), counts)
        except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
            raise ModelError(f"word rarity table {path} is unreadable ({type(exc).__name__}: "
                             f"{str(exc)[:120]}); {_HOW}") from None


@lru_cache(maxsize=1)
def shipped_rarity() -> WordRarity:
    return WordRarity.load()
