"""Plain-text rendering of events for the terminal (--trace and the final answer)."""
from __future__ import annotations

from ..events.core import Answer, Event, Relevance, Retrieved
from ..answering.quoting import shown_label
from ..grounding.label_text import CLOSEST_HEADING
from ..presentation.step_text import StepNarrator, no_source, passage_name, relevance_summary, resolved_phrase, short


class TraceWriter:
    """`ask --trace`: one plain-language line per step, indented by sub-question depth.

    The relevance verdicts of one retrieval end with their summary ("Kept 3 of 10 passages ..."),
    written when the next step arrives. `full` (`--trace=full`) adds each passage found and each
    judge verdict; without it only the steps show."""

    def __init__(self, full: bool = False):
        self.narrator = StepNarrator(numbers=full)
        self.full = full
        self._verdicts: list[Relevance] = []

    def pending(self) -> list[str]:
        """The summary of the verdicts written so far (before the answer's words, which come
        without an event of their own that would end them)."""
        if not self._verdicts:
            return []
        kept = "" if self.full else ": " + ", ".join(
            self.narrator.name_of(v.passage_id) for v in self._verdicts if v.relevant)
        line = f"{'  ' * self._verdicts[-1].depth}{relevance_summary(self._verdicts, self.full)}{kept.rstrip(': ')}"
        self._verdicts = []
        return [line]

    def lines(self, event: Event) -> list[str]:
        pad = "  " * event.depth
        out = [] if isinstance(event, Relevance) else self.pending()
        if isinstance(event, Answer):
            return out
        line = self.narrator.line(event)
        if line is None:
            return out
        if isinstance(event, Relevance):
            self._verdicts.append(event)
            return out + ([f"{pad}  {line}"] if self.full else [])
        out.append(pad + line)
        if isinstance(event, Retrieved) and self.full:
            for i, p in enumerate(event.passages, 1):  # in the search's order: its rank is i
                out.append(f"{pad}  {i}. {passage_name(p)}: {short(p.text, 60)}")
        return out


def trace_line(event: Event, full: bool = True) -> str | None:
    """One event alone, as `--trace=full` writes it (without what earlier events said)."""
    return "\n".join(TraceWriter(full).lines(event)) or None


def answer_block(answer: Answer, revised: bool = True, link=None) -> str:
    """The answer with its [n] markers, the cited sources (only those) and the run's counts.
    `link(label, passage)`: each source's label as a link (cli/open_source.py), on a terminal."""
    link = link or (lambda label, passage: label)
    lines = [answer.marked_text or answer.text or "(no answer)"]
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        for i, p in enumerate(answer.citations, 1):  # the index's own metadata, bounded and quoted
            about = " > ".join(f'"{shown_label(x, 60)}"' for x in (p.title, p.section) if x and x not in p.citation_label())
            lines.append(f"  [{i}] {link(shown_label(p.citation_label()), p)}" + (f" ({about})" if about else ""))
    elif answer.closest:
        lines.append("")
        lines.append(CLOSEST_HEADING)
        for i, p in enumerate(answer.closest, 1):  # numbered too: `assistant open N` opens one
            lines.append(f"  [{i}] {link(shown_label(p.citation_label()), p)}: {short(p.text, 80)}")
    elif answer.passages_read:
        lines.append("")
        lines.append(no_source(answer))
    c = answer.counts
    lines.append("")
    lines.append(f"{resolved_phrase(answer.resolved_by, revised)}; {c.get('retrievals', 0)} retrievals, "
                 f"{c.get('sub_questions', 0)} sub-questions, {c.get('reader_calls', 0)} reader calls, "
                 f"{answer.seconds:.1f}s")
    return "\n".join(lines)
