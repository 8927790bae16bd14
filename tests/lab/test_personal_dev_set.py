"""The personal-documents dev set (lab/personal_docs/dev_sources.py, dev_questions.jsonl): its plan
and its questions, without building the folder or running a model."""
import json
from collections import Counter
from pathlib import Path

from research.evaluation.personal_set import load_personal
from lab import personal_eval
from lab.personal_docs import build_folder, dev_check
from lab.personal_docs.dev_sources import DEV_ITEMS
from lab.personal_docs.manifest import DEV_MANIFEST, MANIFEST, read_manifest
from lab.personal_docs.sources import ITEMS

RESERVED = ("readme", "authors", "news", "copyright", "metadata", "license", "changelog")


def _records():
    return [json.loads(line) for line in personal_eval.DEV_QUESTIONS.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _page(item) -> str:
    """The manual an item is made from: a man page's name, a documentation file's name without suffixes."""
    return item.source if item.how.startswith("man") else Path(item.source).name.split(".")[0]


def test_dev_questions_parse_with_the_counts_per_kind():
    questions = load_personal(personal_eval.DEV_QUESTIONS, "dev")
    assert len(questions) == len(_records()) == 40
    assert all(record["split"] == "dev" and record["id"].startswith("dev-") for record in _records())
    assert len({q.id for q in questions}) == len(questions)
    assert Counter(q.kind for q in questions) == {"one_fact": 12, "two_facts": 6, "two_files": 6, "folder": 4,
                                                  "unanswerable": 12}
    assert all(q.holding_files or q.expected_count is not None for q in questions if q.answerable)
    assert all(not q.holding_files and not q.answers for q in questions if not q.answerable)


def test_dev_questions_name_only_files_of_the_dev_folder_and_the_checker_covers_them():
    dests = {item.dest for item in DEV_ITEMS}
    for record in _records():
        named = {f for part in record["holding_files"] for f in part} | set(record.get("expected_files") or [])
        named |= {record["near_file"]} if record.get("near_file") else set()
        assert named <= dests, record["id"]
    questions = load_personal(personal_eval.DEV_QUESTIONS)
    assert {q.id for q in questions if not q.answerable} == set(dev_check.ABSENT)
    folder = {q.id for q in questions if q.expected_files or q.expected_count is not None}
    assert folder == set(dev_check.FOLDER_TERMS) | set(dev_check.FOLDER_COUNTS)
    pdfs = sum(item.dest.endswith(".pdf") for item in DEV_ITEMS)
    assert all(q.expected_count == pdfs for q in questions if q.id in dev_check.FOLDER_COUNTS)


def test_dev_folder_uses_no_manual_of_the_tune_report_folder_and_no_reserved_file():
    assert not {item.source for item in DEV_ITEMS} & {item.source for item in ITEMS}
    assert not {_page(item) for item in DEV_ITEMS} & {_page(item) for item in ITEMS}
    assert not any(word in item.source.lower() for item in DEV_ITEMS for word in RESERVED)
    assert len({item.dest for item in DEV_ITEMS}) == len(DEV_ITEMS)
    suffixes = Counter(Path(item.dest).suffix for item in DEV_ITEMS)
    assert set(suffixes) == {".txt", ".pdf", ".html", ".md", ".docx"} and min(suffixes.values()) >= 5


def test_build_folder_keeps_the_default_set_and_gives_dev_its_own_manifest():
    assert build_folder.SETS["tune-report"][0] is ITEMS and build_folder.SETS["tune-report"][3] == MANIFEST
    assert build_folder.SETS["dev"][0] is DEV_ITEMS and DEV_MANIFEST.name == "dev_manifest.json"
    assert set(read_manifest(DEV_MANIFEST)) == {item.dest for item in DEV_ITEMS}
