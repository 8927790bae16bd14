"""The many-folders questions file (lab/many_folders/questions.jsonl), read as the personal set's
questions (lab/personal_scoring.py scores them alike) with the collection each belongs to.

One JSON object a line: id, collection, split (choose | report: the collection's, fixed),
kind (one_fact | two_facts | two_files | folder | unanswerable), question, answers (per part, its
aliases), holding_files (per part), expected_files / expected_count (questions about the folder),
near_file and key_term (unanswerable: the file it sounds as if it were in, the name no file
writes), source (which structure it came from).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lab.personal_scoring import KINDS, PersonalQuestion

from .collections import COLLECTIONS, SPLITS

QUESTIONS = Path(__file__).with_name("questions.jsonl")


@dataclass
class FolderQuestion(PersonalQuestion):
    collection: str = ""
    near_file: str | None = None
    key_term: str = ""


def _question(record: dict, lineno: int) -> FolderQuestion:
    def bad(what: str) -> SystemExit:
        return SystemExit(f"error: questions file line {lineno}: {what}; regenerate it with lab.many_folders.generate")

    for key in ("id", "collection", "split", "kind", "question"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise bad(f"'{key}' is missing or not text")
    if record["collection"] not in COLLECTIONS or COLLECTIONS[record["collection"]].split != record["split"]:
        raise bad(f"collection '{record['collection']}' is unknown or not on the '{record['split']}' side")
    if record["kind"] not in KINDS:
        raise bad(f"kind '{record['kind']}' is not one of {', '.join(KINDS)}")
    answers = record.get("answers") or []
    if (record["kind"] == "unanswerable") != (not answers):
        raise bad("an unanswerable question has no answers, and only it")
    return FolderQuestion(record["id"], record["split"], record["kind"], record["question"], answers,
                          record.get("holding_files") or [], list(record.get("expected_files") or []),
                          record.get("expected_count"), record["collection"], record.get("near_file"),
                          record.get("key_term", ""))


def load_questions(path: Path = QUESTIONS, which: str = "all") -> list[FolderQuestion]:
    """The questions of the collections named by `which` ("all", "choose", "report", or names
    separated by commas), in file order."""
    if not path.is_file():
        raise SystemExit(f"error: no questions file {path}; write it with lab.many_folders.generate DEST")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [_question(record, n) for n, record in enumerate(records, 1)]
    if which in ("all",) + SPLITS:
        return [q for q in questions if which in ("all", q.split)]
    names = which.split(",")
    unknown = [n for n in names if n not in COLLECTIONS]
    if unknown:
        raise SystemExit(f"error: no collection {', '.join(unknown)}; choose from {', '.join(COLLECTIONS)}")
    return [q for q in questions if q.collection in names]
