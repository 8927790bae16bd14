"""Plain-text rendering of events for the terminal (--trace and the final answer)."""
from __future__ import annotations

from ..events import Answer, Event, Relevance, Retrieved
from ..step_text import StepNarrator, passage_name, relevance_summary, resolved_phrase, short


class TraceWriter:
    """`ask --trace`: one plain-language line per step, indented by sub-question depth.

    The relevance verdicts of one retrieval end with their summary ("Kept 3 of 10 passages ..."),
    written when the next step arrives."""

    def __init__(self):
        self.narrator = StepNarrator()
        self._verdicts: list[Relevance] = []

    def lines(self, event: Event) -> list[str]:
        pad = "  " * event.depth
        out = []
        if self._verdicts and not isinstance(event, Relevance):
            out.append(f"{'  ' * self._verdicts[-1].depth}{relevance_summary(self._verdicts)}")
            self._verdicts = []
        if isinstance(event, Answer):
            return out
        line = self.narrator.line(event)
        if line is None:
            return out
        if isinstance(event, Relevance):
            self._verdicts.append(event)
            return out + [f"{pad}  {line}"]
        out.append(pad + line)
        if isinstance(event, Retrieved):
            for i, p in enumerate(event.passages, 1):
                out.append(f"{pad}  {i}. {short(passage_name(p), 40)} (search score {p.score:.3f}): "
                           f"{short(p.text, 60)}")
        return out


def trace_line(event: Event) -> str | None:
    """One event alone, as `--trace` writes it (without what earlier events said)."""
    return "\n".join(TraceWriter().lines(event)) or None


def answer_block(answer: Answer, revised: bool = True) -> str:
    """The answer with its [n] markers, the cited sources (only those) and the run's counts."""
    lines = [answer.marked_text or answer.text or "(no answer)"]
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        for i, p in enumerate(answer.citations, 1):
            about = " > ".join(x for x in (p.title, p.section) if x and x not in p.citation_label())
            lines.append(f"  [{i}] {p.citation_label()}" + (f" ({about})" if about else ""))
    elif answer.closest:
        lines.append("")
        lines.append("Closest passages (none of them supports the answer):")
        for p in answer.closest:
            lines.append(f"  - {p.citation_label()}: {short(p.text, 80)}")
    elif answer.passages_read:
        lines.append("")
        lines.append(f"No source: none of the {len(answer.passages_read)} passages read holds this answer.")
    c = answer.counts
    lines.append("")
    lines.append(f"{resolved_phrase(answer.resolved_by, revised)}; {c.get('retrievals', 0)} retrievals, "
                 f"{c.get('sub_questions', 0)} sub-questions, {c.get('reader_calls', 0)} reader calls, "
                 f"{answer.seconds:.1f}s")
    return "\n".join(lines)
