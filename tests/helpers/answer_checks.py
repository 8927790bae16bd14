"""What a test of one of the default pipeline's answer checks (yes/no, dates, nationality) reads off
a run: the check's step, the lines the trace prints, and the eval record."""
from __future__ import annotations

from index_builder.datasets import QAExample
from research.evaluation.results import make_record
from assistant.presentation.step_text import StepNarrator


def check_seen(events, kind: str, question: str, gold: str):
    """(the check's detail of `kind`, every line the plain trace prints, the eval record for `gold`)."""
    check = next(e for e in events if e.type == "detail" and e.kind == kind)
    narrator = StepNarrator()
    lines = [narrator.line(e) for e in events]
    record = make_record(QAExample(id="q", question=question, answers=[gold]), events, 1.0)
    return check, lines, record
