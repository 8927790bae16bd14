"""Plain-text rendering of events for the terminal (--trace and the final answer)."""
from __future__ import annotations

from ..events import (Answer, Decomposed, Detail, Draft, Event, Note, Relevance, Retrieved, SelfKnowledge,
                      Started, SubAnswer, SubQuestion)


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def trace_line(event: Event) -> str | None:
    """One readable line (or a few) per step; None for events not shown in the trace."""
    pad = "  " * event.depth
    if isinstance(event, Started):
        return f"question: {event.question}  [strategy {event.strategy}]"
    if isinstance(event, SelfKnowledge):
        verdict = "knows it" if event.knows else "does not know it"
        return f"{pad}self-knowledge: reader {verdict} (p={event.score:.2f}, {event.judge})"
    if isinstance(event, Retrieved):
        lines = [f"{pad}retrieve: \"{_short(event.query, 70)}\" -> {len(event.passages)} passages"]
        for i, p in enumerate(event.passages, 1):
            lines.append(f"{pad}  {i}. {p.id} score={p.score:.4f} {_short(p.citation_label(), 60)}")
        return "\n".join(lines)
    if isinstance(event, Relevance):
        if event.rank_after is not None:  # a ranked pool: the judge's order, and where retrieval had it
            mark = "read" if event.relevant else "not read"
            return (f"{pad}  #{event.rank_after} (retrieval #{event.rank_before}) {event.passage_id}: {mark} "
                    f"(p={event.score:.2f}, threshold {event.threshold:.2f}, {event.judge})")
        mark = "relevant" if event.relevant else "irrelevant"
        return f"{pad}  relevance {event.passage_id}: {mark} (p={event.score:.2f})"
    if isinstance(event, Decomposed):
        if not event.sub_questions:
            return f"{pad}decompose: cannot decompose"
        return f"{pad}decompose: {len(event.sub_questions)} sub-questions"
    if isinstance(event, SubQuestion):
        return f"{pad}sub-question {event.index + 1}: {event.question}"
    if isinstance(event, SubAnswer):
        return f"{pad}sub-answer: {event.answer} ({event.resolved_by})"
    if isinstance(event, Draft):
        prob = f", avg p={event.avg_prob:.2f}" if event.avg_prob is not None else ""
        return f"{pad}draft from {event.basis}: {_short(event.text)}{prob}"
    if isinstance(event, Note):
        return f"{pad}note: {event.message}"
    if isinstance(event, Detail):
        return f"{pad}{event.kind}: {_short(event.summary)}"
    return None


def answer_block(answer: Answer) -> str:
    lines = [answer.text or "(no answer)"]
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        for i, p in enumerate(answer.citations, 1):
            about = " > ".join(x for x in (p.title, p.section) if x and x not in p.citation_label())
            lines.append(f"  [{i}] {p.citation_label()}" + (f" ({about})" if about else ""))
    c = answer.counts
    lines.append("")
    lines.append(f"resolved by {answer.resolved_by or '-'}; {c.get('retrievals', 0)} retrievals, "
                 f"{c.get('sub_questions', 0)} sub-questions, {c.get('reader_calls', 0)} reader calls, "
                 f"{answer.seconds:.1f}s")
    return "\n".join(lines)
