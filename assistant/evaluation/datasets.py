"""Question-answering datasets read from their published files, into one shape.

The format is recognised from the records themselves (their keys), so a renamed file still
loads; the file name only decides how to split it into records (TSV topics vs JSON/JSONL).
Formats (see shared/data/SOURCES.md): HotpotQA raw / HF layout / IRCoT, MuSiQue, 2Wiki,
NQ-open, TriviaQA (DPR tsv and CtrlA jsonl), PopQA, WebQuestions, StrategyQA, R1-Searcher,
DPR topics (jsonl), FRAMES.
"""
from __future__ import annotations

import ast
import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from models.errors import AssistantError

SPAN = "span"
YES_NO = "yes/no"


@dataclass
class Paragraph:
    title: str
    text: str
    is_supporting: bool | None = None


@dataclass
class QAExample:
    id: str
    question: str
    answers: list[str]
    paragraphs: list[Paragraph] = field(default_factory=list)
    sub_questions: list[str] = field(default_factory=list)
    kind: str = SPAN


def load_dataset(path: Path | str, limit: int | None = None) -> list[QAExample]:
    """All examples of a dataset file (the first `limit` when given), in file order."""
    path = Path(path)
    if not path.is_file():
        raise AssistantError(f"no such dataset file: {path}")
    if limit is not None and limit < 1:
        raise AssistantError(f"--limit must be at least 1, got {limit}")
    records = _records(path)
    examples: list[QAExample] = []
    for number, record in enumerate(records):
        if limit is not None and len(examples) >= limit:
            break
        example = _convert(record, number, path)
        if not example.question.strip():
            raise AssistantError(f"{path.name}: record {number + 1} has an empty question")
        examples.append(example)
    if not examples:
        raise AssistantError(f"{path.name}: the file holds no questions")
    ids = [e.id for e in examples]
    if len(set(ids)) != len(ids):  # ids key resumable result files: they must be unique
        for i, example in enumerate(examples):
            example.id = f"{i}:{example.id}"
    return examples


# -- splitting a file into records --------------------------------------------------------

def _records(path: Path) -> Iterable:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise AssistantError(f"{path.name}: not a UTF-8 text file; not a dataset this tool reads") from None
    except OSError as exc:
        raise AssistantError(f"cannot read {path}: {exc.strerror}") from None
    stripped = text.lstrip()
    if not stripped:
        raise AssistantError(f"{path.name}: the file is empty")
    if stripped[0] == "[" or (stripped[0] == "{" and path.suffix == ".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if stripped[0] == "[":
                raise AssistantError(f"{path.name}: invalid JSON ({exc.msg}, line {exc.lineno})") from None
        else:
            if isinstance(data, list):
                return data
            if isinstance(data, dict) and all(isinstance(v, list) for v in data.values()):
                raise AssistantError(f"{path.name}: a title -> sentences corpus file, not questions")
            return [data]
    if stripped[0] == "{":
        return _jsonl(path, text)
    if "\t" in stripped.split("\n", 1)[0]:
        return _dpr_tsv(path, text)
    raise AssistantError(f"{path.name}: unknown dataset format (expected JSON, JSONL or DPR question TSV)")


def _jsonl(path: Path, text: str) -> Iterable[dict]:
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise AssistantError(f"{path.name}: line {lineno} is not JSON ({exc.msg})") from None


def _dpr_tsv(path: Path, text: str) -> Iterable[dict]:
    """DPR topics: question<TAB>python-list-of-answers, CSV-quoted."""
    for lineno, row in enumerate(csv.reader(io.StringIO(text), delimiter="\t"), 1):
        if not row:
            continue
        if len(row) < 2:
            raise AssistantError(f"{path.name}: line {lineno} has no answers column")
        try:
            answers = ast.literal_eval(row[1])
        except (ValueError, SyntaxError):
            raise AssistantError(f"{path.name}: line {lineno}: answers are not a Python list") from None
        yield {"question": row[0], "answer": answers if isinstance(answers, list) else [str(answers)]}


# -- one record to one example ------------------------------------------------------------

def _convert(record, number: int, path: Path) -> QAExample:
    if not isinstance(record, dict):
        raise AssistantError(f"{path.name}: record {number + 1} is not a JSON object; unknown dataset format")
    for matches, convert in _FORMATS:
        if matches(record):
            example = convert(record)
            if not example.id:
                example.id = f"{path.stem}-{number}"
            example.answers = [a for a in (str(x).strip() for x in example.answers) if a]
            if not example.answers:
                raise AssistantError(f"{path.name}: record {number + 1} has no gold answer")
            return example
    keys = ", ".join(sorted(record)[:8])
    raise AssistantError(f"{path.name}: unknown dataset format (record keys: {keys})")


def _id(record: dict) -> str:
    for key in ("question_id", "_id", "id", "qid", "qId", "test_id", "idx"):
        if record.get(key) not in (None, ""):
            return str(record[key])
    return ""


def _kind(answers: list[str]) -> str:
    return YES_NO if answers and all(a.strip().lower() in {"yes", "no"} for a in answers) else SPAN


def _as_list(value) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _ircot(r: dict) -> QAExample:
    answers = [s for obj in r.get("answers_objects", []) for s in obj.get("spans", [])]
    paragraphs = [Paragraph(c.get("title", ""), c.get("paragraph_text", ""), c.get("is_supporting"))
                  for c in r.get("contexts", [])]
    return QAExample(_id(r), r["question_text"], answers, paragraphs, [], _kind(answers))


def _musique(r: dict) -> QAExample:
    answers = _as_list(r.get("answer")) + _as_list(r.get("answer_aliases"))
    paragraphs = [Paragraph(p.get("title", ""), p.get("paragraph_text", ""), p.get("is_supporting"))
                  for p in r.get("paragraphs", [])]
    subs = [step["question"] for step in r.get("question_decomposition", []) if step.get("question")]
    return QAExample(_id(r), r["question"], answers, paragraphs, subs, _kind(answers))


def _raw_hotpot(r: dict) -> QAExample:
    """HotpotQA / 2Wiki raw ([[title, sentences]]) or HF layout ({title: [], sentences: []})."""
    context = r.get("context") or []
    if isinstance(context, dict):
        pairs = list(zip(context.get("title", []), context.get("sentences", [])))
    else:
        pairs = [(c[0], c[1]) for c in context]
    facts = r.get("supporting_facts") or []
    support = set(facts.get("title", [])) if isinstance(facts, dict) else {f[0] for f in facts}
    paragraphs = [Paragraph(title, " ".join(s.strip() for s in sentences if s.strip()), title in support if support else None)
                  for title, sentences in pairs]
    answers = _as_list(r.get("answer"))
    return QAExample(_id(r), r["question"], answers, paragraphs, [], _kind(answers))


def _strategyqa(r: dict) -> QAExample:
    return QAExample(_id(r), r["question"], ["yes" if r["answer"] else "no"], [], [], YES_NO)


def _webquestions(r: dict) -> QAExample:
    return QAExample(_id(r), r["qText"], _as_list(r.get("answers")), [], [], SPAN)


def _frames(r: dict) -> QAExample:
    answers = _as_list(r.get("answer")) or _as_list(r.get("Answer"))
    return QAExample(_id(r), r["Question"], answers, [], [], SPAN)


def _plain(r: dict) -> QAExample:
    """NQ-open, TriviaQA (CtrlA), PopQA, R1-Searcher, 2Wiki QA-only, DPR topics jsonl."""
    answers = _as_list(r.get("answers")) or _as_list(r.get("answer"))
    return QAExample(_id(r), r["question"], answers, [], [], _kind(answers))


_FORMATS: list[tuple[Callable[[dict], bool], Callable[[dict], QAExample]]] = [
    (lambda r: "question_text" in r and "contexts" in r, _ircot),
    (lambda r: "paragraphs" in r and "question" in r, _musique),
    (lambda r: "question" in r and isinstance(r.get("answer"), bool), _strategyqa),
    (lambda r: "question" in r and ("context" in r or "supporting_facts" in r), _raw_hotpot),
    (lambda r: "qText" in r, _webquestions),
    (lambda r: "Question" in r, _frames),
    (lambda r: "question" in r and ("answers" in r or "answer" in r), _plain),
]


def has_paragraphs(examples: Iterable[QAExample]) -> bool:
    return any(e.paragraphs for e in examples)
