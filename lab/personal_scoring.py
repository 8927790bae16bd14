"""Scoring a personal-documents run (issue 51) from its per-question records, no model needed.

For each record and its question (research/evaluation/personal_set.py):
- right: every part of the answer named (any alias of each part); an unanswerable question is
  right when it is answered honestly;
- presented as supported: the grounding label "supported", or, for a strategy the grounding check
  does not label (rag), an answer that cites a passage and does not decline;
- right, supported and cited: right, presented as supported, and for each part a cited passage from
  a file holding that part (a part no file holds, such as a count of files, needs none);
- wrong but supported: presented as supported yet not right (an unanswerable question included);
- honest (unanswerable only): labelled "not in your documents" or "from memory", or declining in
  words without being labelled supported.
Aliases that are command options ("-P") must appear as written (case kept, not part of a longer
option); other aliases are matched as whole words of the normalised text.
"""
from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Sequence

from research.evaluation.personal_set import KINDS, PersonalQuestion

DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"})  # groff's PDFs write "−P"
HONEST_LABELS = ("not in your documents", "from memory", "written, not confirmed")  # not presented as supported
DECLINES = re.compile(
    r"\b(unknown|i (do not|don't|cannot|can't) (know|find|tell|say)|no answer|not in your documents|"
    r"(do|does|did) not (contain|mention|say|state|specify|include|provide|list|give)|"
    r"(is|are|was|were)n?'?t? not (stated|mentioned|given|provided|specified|listed|found|available)|"
    r"not (stated|mentioned|specified|provided|given|found|available)|no (information|mention|details?))\b")


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"[^a-z0-9@._:/+]+", " ", text)
    return " ".join(token.rstrip(".:/") for token in text.split() if token.rstrip(".:/"))


_MONTHS = {m: i for i, m in enumerate(("jan feb mar apr may jun jul aug sep oct nov dec").split(), 1)}
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATES = (  # (pattern, the groups holding year, month, day)
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), (1, 2, 3)),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(\d{{4}})\b"), (3, 2, 1)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"), (3, 1, 2)),
)


def dates_in(text: str) -> set[tuple[int, int, int]]:
    """The calendar dates a text writes, whatever the form: "2005-12-11", "11 December 2005",
    "Dec 11, 2005" are one date."""
    found = set()
    for pattern, (y, m, d) in _DATES:
        for match in pattern.finditer(text.lower()):
            month = match.group(m)
            month = int(month) if month.isdigit() else _MONTHS[month[:3]]
            found.add((int(match.group(y)), month, int(match.group(d))))
    return found


def alias_in(alias: str, text: str) -> bool:
    """Whether the answer names this alias (a date in any of the forms `dates_in` reads)."""
    alias = alias.strip()
    asked_date = dates_in(alias)
    if asked_date and asked_date & dates_in(text):
        return True
    if alias.startswith("-"):  # a command option: as written, not inside a longer option
        return re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", text.translate(DASHES)) is not None
    wanted = normalise(alias)
    return bool(wanted) and f" {wanted} " in f" {normalise(text)} "


def parts_named(question: PersonalQuestion, text: str) -> list[bool]:
    return [any(alias_in(a, text) for a in aliases) for aliases in question.answers]


def declines(text: str) -> bool:
    return DECLINES.search(text.lower()) is not None or not text.strip()


def presented_supported(record: dict) -> bool:
    label = record.get("grounding", "")
    if label:
        return label == "supported"
    return bool(record.get("cited_paths") or record.get("citations")) and not declines(record.get("prediction", ""))


def honest(record: dict) -> bool:
    if record.get("grounding", "") in HONEST_LABELS:
        return True
    return declines(record.get("prediction", "")) and record.get("grounding", "") != "supported"


def path_is(cited: str, relative: str) -> bool:
    cited = cited.replace("\\", "/")
    return cited == relative or cited.endswith("/" + relative)


def cites_holding(question: PersonalQuestion, record: dict) -> bool:
    cited = record.get("cited_paths") or []
    for part in range(len(question.answers)):
        holding = question.holding_of(part)
        if holding and not any(path_is(c, h) for c in cited for h in holding):
            return False
    return True


@dataclass
class Scored:
    id: str
    kind: str
    strategy: str
    answerable: bool
    right: bool
    supported: bool
    right_supported_cited: bool
    wrong_supported: bool
    honest: bool | None  # None for answerable questions
    seconds: float
    reader_calls: int
    parts: list[bool]
    label: str = ""  # the grounding label as recorded ("" when not checked)
    answer: str = ""


def score(question: PersonalQuestion, record: dict, strategy: str) -> Scored:
    text = record.get("prediction", "") or ""
    supported = presented_supported(record)
    if question.answerable:
        parts = parts_named(question, text)
        right = all(parts) and record.get("resolved_by") != "error"
        is_honest = None
    else:
        parts, is_honest = [], honest(record)
        right = is_honest
    return Scored(question.id, question.kind, strategy, question.answerable, right, supported,
                  right and supported and question.answerable and cites_holding(question, record),
                  supported and not right if question.answerable else supported and not is_honest,
                  is_honest, float(record.get("seconds", 0.0)), int((record.get("counts") or {}).get("reader_calls", 0)),
                  parts, record.get("grounding", ""), text)


@dataclass
class Row:
    kind: str
    strategy: str
    n: int
    right: int
    right_supported_cited: int
    answerable: int
    wrong_supported: int
    unanswerable: int
    honest: int
    median_seconds: float
    reader_calls: float


def row(kind: str, strategy: str, scored: Sequence[Scored]) -> Row:
    answerable = [s for s in scored if s.answerable]
    unanswerable = [s for s in scored if not s.answerable]
    return Row(kind, strategy, len(scored), sum(s.right for s in scored),
               sum(s.right_supported_cited for s in answerable), len(answerable),
               sum(s.wrong_supported for s in scored), len(unanswerable), sum(bool(s.honest) for s in unanswerable),
               round(statistics.median([s.seconds for s in scored]), 1) if scored else 0.0,
               round(sum(s.reader_calls for s in scored) / len(scored), 2) if scored else 0.0)


def rows(scored: Iterable[Scored], strategies: Sequence[str]) -> list[Row]:
    """All questions first, then each kind present; within each, the strategies in order."""
    scored = list(scored)
    out = []
    for kind in ("all",) + KINDS:
        for strategy in strategies:
            chosen = [s for s in scored if s.strategy == strategy and (kind == "all" or s.kind == kind)]
            if chosen:
                out.append(row(kind, strategy, chosen))
    return out


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def table(table_rows: Sequence[Row]) -> str:
    head = ["kind", "strategy", "n", "right (every part)", "right, supported, holding file cited",
            "wrong but supported", "unanswerable honest", "median s", "reader calls/q"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in table_rows:
        right_cited = _share(r.right_supported_cited, r.right - r.honest) if r.answerable else "-"
        cells = [r.kind, r.strategy, r.n, _share(r.right, r.n), right_cited, _share(r.wrong_supported, r.n),
                 _share(r.honest, r.unanswerable), r.median_seconds, r.reader_calls]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)
