"""A personal-documents question set (lab/personal_docs/questions.jsonl): questions over a folder
of a person's own files, each answer in parts, each part with the files that hold it.

One JSON object a line: id, split ("tune" | "report" | "dev"), kind (one_fact | two_facts | two_files |
folder | unanswerable), question, answers (one list of acceptable aliases per part of the
question), holding_files (per part, or one list for all parts), and for questions about the folder
itself expected_files and/or expected_count. An unanswerable question has no answers.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from models.errors import AssistantError

from index_builder.datasets import QAExample

KINDS = ("one_fact", "two_facts", "two_files", "folder", "unanswerable")
SPLITS = ("tune", "report", "dev")  # dev: lab/personal_docs/dev_questions.jsonl, its own folder
UNANSWERABLE_GOLD = "(not in the folder)"  # the harness's gold for a question with no answer


@dataclass
class PersonalQuestion:
    id: str
    split: str
    kind: str
    question: str
    answers: list[list[str]] = field(default_factory=list)  # per part: its aliases
    holding_files: list[list[str]] = field(default_factory=list)  # per part, or [files] for all parts
    expected_files: list[str] = field(default_factory=list)
    expected_count: int | None = None

    @property
    def answerable(self) -> bool:
        return bool(self.answers)

    def holding_of(self, part: int) -> list[str]:
        """The files that hold part `part` of the answer ([] when no file has to be cited)."""
        if len(self.holding_files) == len(self.answers):
            return self.holding_files[part]
        return sorted({f for files in self.holding_files for f in files})

    def all_holding(self) -> set[str]:
        return {f for files in self.holding_files for f in files}

    def example(self) -> QAExample:
        """The question as the harness runs it: gold is every alias of every part (EM and F1
        then mean little; the personal scoring reads the parts)."""
        gold = [alias for aliases in self.answers for alias in aliases] or [UNANSWERABLE_GOLD]
        return QAExample(id=self.id, question=self.question, answers=gold, kind=self.kind)


def _question(record: dict, lineno: int) -> PersonalQuestion:
    def bad(what: str) -> AssistantError:
        return AssistantError(f"questions file line {lineno}: {what}")

    if not isinstance(record, dict):
        raise bad("not a JSON object")
    for key in ("id", "split", "kind", "question"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise bad(f"'{key}' is missing or not text")
    if record["kind"] not in KINDS:
        raise bad(f"kind '{record['kind']}' is not one of {', '.join(KINDS)}")
    if record["split"] not in SPLITS:
        raise bad(f"split '{record['split']}' is not tune, report or dev")
    answers = record.get("answers") or []
    if not all(isinstance(p, list) and p and all(isinstance(a, str) and a.strip() for a in p) for p in answers):
        raise bad("'answers' must be a list of non-empty lists of aliases")
    if (record["kind"] == "unanswerable") != (not answers):
        raise bad("an unanswerable question has no answers, and only it")
    holding = record.get("holding_files") or []
    if not all(isinstance(p, list) and all(isinstance(f, str) for f in p) for p in holding):
        raise bad("'holding_files' must be a list of lists of file paths")
    count = record.get("expected_count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
        raise bad("'expected_count' is not a whole number")
    return PersonalQuestion(record["id"], record["split"], record["kind"], record["question"], answers, holding,
                            list(record.get("expected_files") or []), count)


def load_personal(path: Path | str, split: str | None = None) -> list[PersonalQuestion]:
    """The questions of the file (of one split when given), in file order; ids must be unique."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise AssistantError(f"cannot read questions file {path}: {exc.strerror or exc}") from None
    questions = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AssistantError(f"questions file line {lineno} is not JSON ({exc.msg})") from None
        questions.append(_question(record, lineno))
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise AssistantError(f"{path.name}: question ids repeat; each must be unique")
    if split is not None:
        if split not in SPLITS:
            raise AssistantError(f"split '{split}' is not tune, report or dev")
        questions = [q for q in questions if q.split == split]
    return questions
