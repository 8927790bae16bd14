"""Per-question result records: built from a question's events, stored as resumable JSONL.

A results file holds one JSON object per finished question; a run killed mid-write leaves at
most one partial last line, which is cut off when the file is opened again.
"""
from __future__ import annotations

import json
import resource
from pathlib import Path
from typing import Iterable

from models.errors import AssistantError

from assistant.checks import CHECKS
from assistant.events.details import AnswerReread, RefeedDecision
from assistant.events.core import Answer, Decomposed, Detail, Draft, Event, Note, Relevance, Retrieved, SelfKnowledge, SubAnswer
from . import metrics
from index_builder.datasets import QAExample
from .support import citation_record


def peak_rss_mb() -> float:
    """The process's peak resident memory so far (Linux reports kilobytes)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def path_taken(events: Iterable[Event]) -> list[str]:
    """A compact trace of the steps, e.g. ["knows=no", "retrieved 5", "relevant 0/5", "decomposed 2"]."""
    trace: list[str] = []
    relevant = judged = 0  # verdicts of the current run of Relevance events
    for event in events:
        prefix = f"d{event.depth} " if event.depth else ""
        if isinstance(event, Relevance):
            if not (trace and trace[-1].startswith(f"{prefix}relevant ")):
                relevant = judged = 0
                trace.append("")
            judged += 1
            relevant += event.relevant
            trace[-1] = f"{prefix}relevant {relevant}/{judged}"
        elif isinstance(event, SelfKnowledge):
            trace.append(f"{prefix}knows={'yes' if event.knows else 'no'}")
        elif isinstance(event, Retrieved):
            trace.append(f"{prefix}retrieved {len(event.passages)}")
        elif isinstance(event, Decomposed):
            trace.append(f"{prefix}decomposed {len(event.sub_questions)}")
        elif isinstance(event, Note):
            trace.append(f"{prefix}note: {event.message[:60]}")
        elif isinstance(event, Detail):
            trace.append(f"{prefix}{event.kind}")
    return trace


def make_record(example: QAExample, events: list[Event], rss_mb: float) -> dict:
    answer = next((e for e in reversed(events) if isinstance(e, Answer)), None)
    if answer is None:
        raise AssistantError(f"question {example.id}: the strategy ended without an answer")
    sub_questions = [q for e in events if isinstance(e, Decomposed) for q in e.sub_questions]
    return {
        "id": example.id,
        "question": example.question,
        "gold": example.answers,
        "kind": example.kind,
        "prediction": answer.text,
        "resolved_by": answer.resolved_by,
        "scores": metrics.score(answer.text, example.answers, example.kind),
        "counts": answer.counts,
        "seconds": answer.seconds,
        "path": path_taken(events),
        "sub_questions": sub_questions,
        "sub_answers": [[e.question, e.answer] for e in events if isinstance(e, SubAnswer)],
        "citations": [p.title or p.id for p in answer.citations],
        "cited_paths": [p.path for p in answer.citations],  # a folder's files: which file each cites
        "closest_paths": [p.path for p in answer.closest],  # shown when nothing supports the answer
        "grounding": answer.grounding,
        "read": read_passages(events, answer),
        **citation_record(example, answer.citations),
        "peak_rss_mb": rss_mb,
        "drafts": top_level_drafts(events),
        # ReFeed's choice with both candidates' probabilities and judge support: other keep rules
        # can be scored from the same run
        "refeed": top_level_detail(events, RefeedDecision),
        # each answer check's detail (the answer as written and what decided it), under the check's
        # option name (yes_no, dates, nationality): other thresholds can be scored from the same run
        **{check.option: top_level_detail(events, check.detail) for check in CHECKS},
        # on a person's files, each answer read again (P(yes), what the reader read back): why a
        # run's label is what it is, where a replay of the same answers may differ by a hair
        "rereads": [e.data for e in events if isinstance(e, AnswerReread)],
    }


def top_level_detail(events: list[Event], kind: type[Detail]) -> dict | None:
    """The data of the question's own (depth 0) last detail of this kind, not a sub-question's."""
    return next((e.data for e in reversed(events) if isinstance(e, kind) and e.depth == 0), None)


def read_passages(events: Iterable[Event], answer: Answer) -> list[dict]:
    """The passages the reader read for the answer, in prompt order, with their texts: the grounding
    check (which never changes the answer) can then be replayed on exactly what a run read."""
    found = {p.id: p for e in events if isinstance(e, Retrieved) for p in e.passages}
    return [{"id": i, "title": found[i].title, "path": found[i].path, "section": found[i].section, "text": found[i].text}
            for i in answer.passages_read if i in found]


def top_level_drafts(events: Iterable[Event]) -> list[dict]:
    """The answers the question's own stages wrote, in order (sub-questions' left out): the
    pipeline's earlier answers are its ablations without the later stages, scored from the same run."""
    return [{"basis": e.basis, "text": e.text, "avg_prob": e.avg_prob}
            for e in events if isinstance(e, Draft) and e.depth == 0]


def error_record(example: QAExample, message: str, seconds: float) -> dict:
    """A question whose run failed is scored as a wrong answer and says why."""
    return {"id": example.id, "question": example.question, "gold": example.answers, "kind": example.kind,
            "prediction": "", "resolved_by": "error", "error": message,
            "scores": metrics.score("", example.answers, example.kind), "counts": {}, "seconds": seconds,
            "path": [], "sub_questions": [], "citations": [], "peak_rss_mb": peak_rss_mb()}


class ResultsFile:
    """Append-only JSONL of records, keyed by question id."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.records: dict[str, dict] = {}
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
            if data and not data.endswith(b"\n"):  # a write cut off by a kill: drop the partial line
                data = data[: data.rfind(b"\n") + 1]
                self.path.write_bytes(data)
        except OSError as exc:
            raise AssistantError(f"cannot read results file {self.path}: {exc.strerror or exc}; "
                                 "choose another --out") from None
        for lineno, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                self.records[record["id"]] = record
            except (json.JSONDecodeError, KeyError, TypeError):
                raise AssistantError(f"{self.path}: line {lineno} is not a result record; "
                                     "remove the file or choose another --out") from None

    def done(self, example_id: str) -> bool:
        return example_id in self.records

    def append(self, record: dict) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line)
        except OSError as exc:
            raise AssistantError(f"cannot write results file {self.path}: {exc.strerror or exc}; "
                                 "free some space or choose another --out") from None
        self.records[record["id"]] = record
