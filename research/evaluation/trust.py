"""How far a run's answers can be trusted: citations against the support labels, and EM by grounding.

- citation precision: cited passages that are gold supporting paragraphs, over all cited passages;
- support recall: answers citing every gold supporting paragraph (over all answers, and over the
  right ones, EM = 1);
- by grounding label (supported / pieced together / written, not confirmed / not in your documents / from memory /
  not checked): the share of
  answers and their EM. On a --drop-support run, "supported" counts answers that cite a passage for
  a claim it cannot support (each question's own support was hidden).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

LABELS = ("supported", "pieced together", "written, not confirmed", "not in your documents", "from memory", "")
SHOWN = {"": "not checked"}


@dataclass
class Trust:
    name: str
    n: int = 0
    cited: int = 0  # passages cited, over questions with support labels
    citation_precision: float | None = None  # percent
    support_recall: float | None = None
    support_recall_right: float | None = None
    labelled: int = 0  # questions with support labels
    by_label: dict[str, tuple[int, float]] = field(default_factory=dict)  # label -> (count, EM %)


def _pct(part: float, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def trust(name: str, records: Sequence[dict]) -> Trust:
    out = Trust(name=name, n=len(records))
    labelled = [r for r in records if "support_cited" in r]
    out.labelled = len(labelled)
    flags = [ok for r in labelled for ok in r.get("cited_gold", [])]
    out.cited = len(flags)
    out.citation_precision = _pct(sum(flags), len(flags))
    out.support_recall = _pct(sum(r["support_cited"] for r in labelled), len(labelled))
    right = [r for r in labelled if r["scores"]["em"]]
    out.support_recall_right = _pct(sum(r["support_cited"] for r in right), len(right))
    for label in LABELS:
        rows = [r for r in records if r.get("grounding", "") == label]
        if rows:
            out.by_label[label] = (len(rows), round(100 * sum(r["scores"]["em"] for r in rows) / len(rows), 1))
    return out


def _row(cells) -> str:
    return "| " + " | ".join("-" if c is None else str(c) for c in cells) + " |"


def trust_table(trusts: Sequence[Trust]) -> str:
    """Citation columns, then each grounding label's share (%) and EM."""
    labels = [l for l in LABELS if any(l in t.by_label for t in trusts)]
    head = ["strategy", "n", "cited passages", "citation precision", "support recall",
            "support recall (right answers)"]
    for label in labels:
        head += [f"{SHOWN.get(label, label)} %", f"{SHOWN.get(label, label)} EM"]
    lines = [_row(head), _row(["---"] * len(head))]
    for t in trusts:
        cells = [t.name, t.n, t.cited if t.labelled else None, t.citation_precision, t.support_recall,
                 t.support_recall_right]
        for label in labels:
            count, em = t.by_label.get(label, (0, None))
            cells += [round(100 * count / t.n, 1) if t.n else None, em if count else None]
        lines.append(_row(cells))
    return "\n".join(lines)
