"""Summaries of result records: quality, cost and behaviour per strategy, as markdown tables."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass
class Summary:
    name: str
    n: int = 0
    em: float = 0.0  # percentages
    f1: float = 0.0
    substring: float = 0.0
    yes_no_acc: float | None = None  # over yes/no questions only; None when there are none
    yes_no_n: int = 0
    per_question: dict[str, float] = field(default_factory=dict)  # mean counts
    resolved_by: dict[str, float] = field(default_factory=dict)  # share in percent
    p50: float = 0.0
    p95: float = 0.0
    peak_rss_mb: float = 0.0
    errors: int = 0


COUNT_KEYS = ("reader_calls", "prompt_tokens", "evaluated_tokens", "completion_tokens", "retrievals",
              "sub_questions")


def summarize(name: str, records: Sequence[dict]) -> Summary:
    summary = Summary(name=name, n=len(records))
    if not records:
        return summary
    n = len(records)

    def mean_score(key: str, rows) -> float:
        return round(100 * sum(r["scores"][key] for r in rows) / max(1, len(rows)), 1)

    summary.em, summary.f1, summary.substring = (mean_score(k, records) for k in ("em", "f1", "substring"))
    yes_no = [r for r in records if r.get("kind") == "yes/no"]
    if yes_no:
        summary.yes_no_n = len(yes_no)
        summary.yes_no_acc = mean_score("acc", yes_no)
    summary.per_question = {k: round(sum(r.get("counts", {}).get(k, 0) for r in records) / n, 2)
                            for k in COUNT_KEYS}
    shares = Counter(r.get("resolved_by") or "?" for r in records)
    summary.resolved_by = {k: round(100 * v / n, 1) for k, v in shares.most_common()}
    seconds = [float(r.get("seconds", 0.0)) for r in records]
    summary.p50, summary.p95 = round(percentile(seconds, 50), 2), round(percentile(seconds, 95), 2)
    summary.peak_rss_mb = max(float(r.get("peak_rss_mb", 0.0)) for r in records)
    summary.errors = sum(1 for r in records if r.get("resolved_by") == "error")
    return summary


def em_wins_losses(records: dict[str, dict], baseline: dict[str, dict]) -> tuple[int, int, int]:
    """Question by question against a baseline (both keyed by question id): (wins, losses,
    questions compared) in EM; averages hide whether two strategies answer the same questions."""
    shared = [i for i in records if i in baseline]
    wins = sum(records[i]["scores"]["em"] > baseline[i]["scores"]["em"] for i in shared)
    losses = sum(records[i]["scores"]["em"] < baseline[i]["scores"]["em"] for i in shared)
    return wins, losses, len(shared)


def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def quality_cost_table(summaries: Sequence[Summary]) -> str:
    head = ["strategy", "n", "EM", "F1", "substr acc", "yes/no acc", "reader calls/q", "prompt tok/q",
            "evaluated tok/q", "generated tok/q", "retrievals/q", "sub-q/q", "p50 s", "p95 s", "peak RSS MB"]
    lines = [_row(head), _row(["---"] * len(head))]
    for s in summaries:
        q = s.per_question
        yes_no = f"{s.yes_no_acc} ({s.yes_no_n})" if s.yes_no_acc is not None else "-"
        lines.append(_row([s.name, s.n, s.em, s.f1, s.substring, yes_no, q.get("reader_calls", 0),
                           round(q.get("prompt_tokens", 0)), round(q.get("evaluated_tokens", 0)),
                           round(q.get("completion_tokens", 0)), q.get("retrievals", 0),
                           q.get("sub_questions", 0), s.p50, s.p95, round(s.peak_rss_mb)]))
    return "\n".join(lines)


def resolved_by_table(summaries: Sequence[Summary]) -> str:
    """Share of questions (percent) whose final answer came from each module."""
    modules = []
    for s in summaries:
        modules.extend(m for m in s.resolved_by if m not in modules)
    lines = [_row(["strategy"] + modules), _row(["---"] * (len(modules) + 1))]
    for s in summaries:
        lines.append(_row([s.name] + [s.resolved_by.get(m, 0.0) for m in modules]))
    return "\n".join(lines)


def markdown_report(title: str, summaries: Sequence[Summary], notes: Sequence[str] = (),
                    trust_rows: str = "") -> str:
    parts = [f"## {title}", "", quality_cost_table(summaries), "",
             "Share of questions (%) by the module that produced the final answer (resolved_by):", "",
             resolved_by_table(summaries)]
    if trust_rows:
        parts += ["", "Citations against the support labels, and answers by grounding label (share %, EM):",
                  "", trust_rows]
    errors = [f"{s.name}: {s.errors} questions failed (scored as wrong)" for s in summaries if s.errors]
    if errors or notes:
        parts += [""] + [f"- {line}" for line in list(notes) + errors]
    return "\n".join(parts) + "\n"
