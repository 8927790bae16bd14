"""The judge interface RA-ISF needs: self-knowledge, passage relevance, decomposition.

Implementations: ReaderJudge (the reader prompted, verdicts from label log-probabilities)
and the ONNX T5 judge. Both decide a verdict by comparing the likelihoods of two labels,
never by parsing free text, and parse decompositions strictly.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Protocol, Sequence


@dataclass(frozen=True)
class Verdict:
    yes: bool
    score: float  # probability of the positive label, in [0, 1]


class Judge(Protocol):
    name: str  # shown in events, e.g. "reader" or "t5-onnx/cpu"

    def knows(self, question: str) -> Verdict: ...

    def relevant(self, question: str, passages: Sequence[str]) -> list[Verdict]: ...

    def decompose(self, question: str) -> list[str]:
        """Sub-questions, or [] when the question cannot be decomposed."""
        ...


def two_label_verdict(logp_yes: float, logp_no: float, threshold: float = 0.5) -> Verdict:
    """Normalise two label log-likelihoods to P(yes) and compare with a calibrated threshold."""
    top = max(logp_yes, logp_no)
    p_yes = math.exp(logp_yes - top) / (math.exp(logp_yes - top) + math.exp(logp_no - top))
    return Verdict(yes=p_yes >= threshold, score=p_yes)


_LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.*\S)\s*$")


def parse_sub_questions(text: str, question: str = "", limit: int = 5) -> list[str]:
    """Strictly parse a decomposition: a JSON list of strings, or a numbered/bulleted list.

    Anything else, fewer than two items, or items that merely repeat the question give []
    ("cannot decompose").
    """
    text = text.strip()
    items: list[str] | None = None
    match = re.search(r"\[.*\]", text, flags=re.S)
    if match:
        try:
            parsed = json.loads(match.group(0))
            if isinstance(parsed, list) and all(isinstance(x, str) for x in parsed):
                items = parsed
        except json.JSONDecodeError:
            items = None
    if items is None:
        items = [m.group(1) for line in text.splitlines() if (m := _LIST_ITEM.match(line))]
    cleaned: list[str] = []
    seen = {_norm(question)}
    for item in items:
        item = item.strip().strip('"').strip()
        if not item.endswith("?") or len(item) < 8:
            continue
        if _norm(item) in seen:
            continue
        seen.add(_norm(item))
        cleaned.append(item)
    return cleaned[:limit] if len(cleaned) >= 2 else []


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()
