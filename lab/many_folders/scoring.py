"""Scoring a many-folders run: lab/personal_scoring.py's scores of each record, and what issue 62
adds: of the right answers, those labelled "not in your documents"; whether a passage read holds
the answer (a passage of a holding file that writes each part); both per collection and per kind."""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Sequence

from lab.personal_scoring import KINDS, Scored, alias_in, path_is, score

from .questions_file import FolderQuestion

NOT_IN_DOCUMENTS = "not in your documents"
FACT_KINDS = ("one_fact", "two_facts", "two_files")  # those whose answer a passage holds


@dataclass
class FolderScored:
    scored: Scored
    collection: str
    right_not_in_documents: bool  # right, yet labelled "not in your documents"
    holding_read: bool | None  # None where no passage holds the answer (folder, unanswerable)


def holding_read(question: FolderQuestion, record: dict) -> bool | None:
    """Whether, for every part, a passage read comes from a file holding it and writes the part."""
    if question.kind not in FACT_KINDS:
        return None
    read = record.get("read") or []
    for part, aliases in enumerate(question.answers):
        holding = question.holding_of(part)
        if not any(path_is(p.get("path", ""), h) and any(alias_in(a, p.get("text", "")) for a in aliases)
                   for p in read for h in holding):
            return False
    return True


def score_folder(question: FolderQuestion, record: dict, strategy: str) -> FolderScored:
    scored = score(question, record, strategy)
    return FolderScored(scored, question.collection,
                        scored.answerable and scored.right and scored.label == NOT_IN_DOCUMENTS,
                        holding_read(question, record))


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


HEAD = ["collection", "kind", "strategy", "n", "right (every part)", "right: supported, holding file cited",
        "right: labelled not in your documents", "wrong but supported", "unanswerable honest",
        "holding passage read", "median s", "reader calls/q"]


def row_cells(collection: str, kind: str, strategy: str, chosen: Sequence[FolderScored]) -> list:
    scored = [c.scored for c in chosen]
    right_answerable = [s for s in scored if s.answerable and s.right]
    unanswerable = [s for s in scored if not s.answerable]
    read = [c.holding_read for c in chosen if c.holding_read is not None]
    return [collection, kind, strategy, len(scored), _share(sum(s.right for s in scored), len(scored)),
            _share(sum(s.right_supported_cited for s in right_answerable), len(right_answerable)),
            _share(sum(c.right_not_in_documents for c in chosen), len(right_answerable)),
            _share(sum(s.wrong_supported for s in scored), len(scored)),
            _share(sum(bool(s.honest) for s in unanswerable), len(unanswerable)),
            _share(sum(read), len(read)),
            round(statistics.median([s.seconds for s in scored]), 1) if scored else 0.0,
            round(sum(s.reader_calls for s in scored) / len(scored), 2) if scored else 0.0]


def table(scored: Sequence[FolderScored], strategies: Sequence[str], by_kind: bool = True) -> str:
    """Every collection together, then each collection; within each, all kinds then each kind
    (with by_kind); within each, the strategies in order."""
    collections = ["all"] + sorted({s.collection for s in scored})
    lines = ["| " + " | ".join(HEAD) + " |", "|" + " --- |" * len(HEAD)]
    for collection in collections:
        for kind in ("all",) + (KINDS if by_kind else ()):
            for strategy in strategies:
                chosen = [s for s in scored if s.scored.strategy == strategy
                          and collection in ("all", s.collection) and kind in ("all", s.scored.kind)]
                if chosen:
                    lines.append("| " + " | ".join(str(c) for c in row_cells(collection, kind, strategy, chosen)) + " |")
    return "\n".join(lines)
