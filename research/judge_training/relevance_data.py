"""Which questions the passage-relevance judge may learn from, and which it must never see.

Issue 15's data rules, in one place, so that training, calibration and the support table all
apply the same ones:
- train on HotpotQA ircot questions 101-500, the HippoRAG HotpotQA and MuSiQue train samples,
  and the 2Wiki records that carry paragraphs;
- report on the first 100 ircot HotpotQA questions and the KAG MuSiQue dev 100;
- never use the two reserved files: any question whose id or normalised text is in them is
  dropped everywhere (training, calibration and report sets alike).
A training question that is also a report question (by id or text) is dropped from training too.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from models.errors import AssistantError

from index_builder.datasets import QAExample, load_dataset
from ..evaluation.question_set import QuestionSet

IRCOT_HOTPOTQA = "hotpotqa/hotpotqa_dev_distractor_500.ircot_format.jsonl"
REPORT_QUESTIONS = 100  # ircot questions 1-100 are the report set; 101-500 may be trained on


@dataclass(frozen=True)
class DataFile:
    path: str  # relative to the shared data folder
    skip: int = 0  # leading questions left out
    first: int | None = None  # then at most this many


TRAIN_FILES = (
    DataFile(IRCOT_HOTPOTQA, skip=REPORT_QUESTIONS),
    DataFile("hotpotqa/hotpotqa_train_100.hipporag.json"),
    DataFile("musique/musique_ans_train_100.hipporag.json"),
    DataFile("2wikimultihopqa/2wikimultihopqa_dev_200.migres.jsonl"),
)
REPORT_FILES = {
    "HotpotQA": DataFile(IRCOT_HOTPOTQA, first=REPORT_QUESTIONS),
    "MuSiQue": DataFile("musique/musique_ans_dev_100.kag.json"),
}
RESERVED_FILES = (
    "hotpotqa/hotpotqa_dev_distractor_200.migres.jsonl",
    "musique/musique_ans_dev_200.migres.jsonl",
)


@dataclass(frozen=True)
class Question:
    """A dataset question with at least one supporting paragraph, and the file it came from."""
    file: str  # DataFile.path
    example: QAExample

    @property
    def id(self) -> str:
        return f"{self.file}#{self.example.id}"


def check_data_dir(data_dir: Path) -> Path:
    """The shared data folder if it holds every file the rules name; else one clear error."""
    data_dir = Path(data_dir).expanduser()
    if not data_dir.is_dir():
        raise AssistantError(f"no shared data folder at {data_dir}; pass --data DIR (the folder holding "
                             "hotpotqa/, musique/ and 2wikimultihopqa/)")
    names = [f.path for f in TRAIN_FILES] + [f.path for f in REPORT_FILES.values()] + list(RESERVED_FILES)
    missing = sorted({name for name in names if not (data_dir / name).is_file()})
    if missing:
        raise AssistantError(f"{data_dir} lacks {', '.join(missing)}; pass --data DIR with the shared data")
    return data_dir


def reserved_examples(data_dir: Path) -> list[QAExample]:
    """Every question of the reserved files: never trained, calibrated or reported on."""
    return [e for name in RESERVED_FILES for e in load_dataset(Path(data_dir) / name)]


def reserved_questions(data_dir: Path) -> QuestionSet:
    return QuestionSet(reserved_examples(data_dir))


def _load(data_dir: Path, data_file: DataFile) -> list[QAExample]:
    end = None if data_file.first is None else data_file.skip + data_file.first
    examples = load_dataset(Path(data_dir) / data_file.path, limit=end)
    return examples[data_file.skip:]


def _with_support(data_file: DataFile, examples: list[QAExample], excluded: QuestionSet) -> list[Question]:
    return [Question(data_file.path, e) for e in examples
            if e not in excluded and any(p.is_supporting for p in e.paragraphs)]


def report_questions(data_dir: Path) -> dict[str, list[Question]]:
    """The report sets, less any question of a reserved file."""
    reserved = reserved_questions(data_dir)
    return {name: _with_support(f, _load(data_dir, f), reserved) for name, f in REPORT_FILES.items()}


def training_questions(data_dir: Path, limit: int | None = None) -> list[Question]:
    """The questions the judge learns from (the first `limit` usable ones of each file when given).

    Dropped: reserved questions, report questions, and records without supporting paragraphs
    (2Wiki's 36 context-less demonstration records)."""
    excluded = reserved_questions(data_dir)
    for report in report_questions(data_dir).values():
        for question in report:
            excluded.add(question.example)
    questions: list[Question] = []
    for data_file in TRAIN_FILES:
        usable = _with_support(data_file, _load(data_dir, data_file), excluded)
        questions.extend(usable[:limit] if limit else usable)
    return questions


def split_held_out(questions: list[Question], fraction: float) -> tuple[list[Question], list[Question]]:
    """(train, held_out), split by question; deterministic (a hash of the question's id)."""
    train, held = [], []
    for question in questions:
        digest = hashlib.sha1(question.id.encode("utf-8")).digest()
        (held if int.from_bytes(digest[:4], "big") / 2**32 < fraction else train).append(question)
    return train, held
