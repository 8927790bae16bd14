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


@dataclass
class DatasetFile:
    """The usable examples of a dataset file and the records skipped, each with its reason."""

    examples: list[QAExample]
    skipped: list[str] = field(default_factory=list)  # e.g. "record 7: 'context' is not a list"

    def skipped_note(self, name: str, named: int = 10) -> str:
        """One line naming the first `named` records skipped, and why; the rest are counted."""
        listed = "; ".join(self.skipped[:named])
        more = f"; and {len(self.skipped) - named} more" if len(self.skipped) > named else ""
        return f"{len(self.skipped)} records of {name} skipped: {listed}{more}"

    def has_paragraphs(self) -> bool:
        """Whether any question carries paragraphs (a corpus to index)."""
        return any(e.paragraphs for e in self.examples)


class BadRecord(ValueError):
    """One record cannot be used; the rest of the file still can."""


def load_dataset(path: Path | str, limit: int | None = None) -> list[QAExample]:
    """All usable examples of a dataset file (the first `limit` when given), in file order."""
    return read_dataset(path, limit).examples


def read_dataset(path: Path | str, limit: int | None = None) -> DatasetFile:
    """Like load_dataset, and says which records were skipped and why.

    A malformed record (wrong shape, no question or answer, text that is not valid Unicode) is
    skipped, so one bad record does not end a long evaluation; a file with no usable record,
    or one that is not a dataset at all, is an error.
    """
    path = Path(path)
    if path.is_dir():
        raise AssistantError(f"{path} is a folder; name a dataset file in it")
    if not path.is_file():
        raise AssistantError(f"no such dataset file: {path}")
    if limit is not None and limit < 1:
        raise AssistantError(f"--limit must be at least 1, got {limit}")
    data = DatasetFile(examples=[])
    for number, record in enumerate(_records(path)):
        if limit is not None and len(data.examples) >= limit:
            break
        try:
            data.examples.append(_convert(record, number, path))
        except BadRecord as exc:
            data.skipped.append(f"record {number + 1}: {exc}")
    if not data.examples:
        first = f" ({data.skipped[0]})" if data.skipped else ""
        raise AssistantError(f"{path.name}: the file holds no usable questions{first}")
    ids = [e.id for e in data.examples]
    if len(set(ids)) != len(ids):  # ids key resumable result files: they must be unique
        for i, example in enumerate(data.examples):
            example.id = f"{i}:{example.id}"
    return data


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
    """One record as an example, or BadRecord saying what is wrong with it."""
    if not isinstance(record, dict):
        raise BadRecord("not a JSON object; unknown dataset format")
    for matches, convert in _FORMATS:
        if matches(record):
            try:
                example = convert(record)
            except BadRecord:
                raise
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                raise BadRecord(f"malformed {convert.__name__.strip('_')} record "
                                f"({type(exc).__name__}: {exc})") from None
            if not example.id:
                example.id = f"{path.stem}-{number}"
            example.answers = [a for a in (str(x).strip() for x in example.answers) if a]
            if not example.question.strip():
                raise BadRecord("the question is empty")
            if not example.answers:
                raise BadRecord("no gold answer")
            _check_unicode(example)
            return example
    keys = ", ".join(sorted(str(k) for k in record)[:8])
    raise BadRecord(f"unknown dataset format (record keys: {keys})")


def _check_unicode(example: QAExample) -> None:
    """JSON can hold lone surrogates ("\\ud800"); such text can be neither tokenized nor stored."""
    texts = [("the question", example.question), ("the id", example.id)]
    texts += [("an answer", a) for a in example.answers]
    texts += [("a sub-question", q) for q in example.sub_questions]
    for i, paragraph in enumerate(example.paragraphs, 1):
        texts += [(f"the title of paragraph {i}", paragraph.title), (f"paragraph {i}", paragraph.text)]
    for what, text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise BadRecord(f"{what} is not valid Unicode text (it holds {text[exc.start]!a})") from None


def _text(r: dict, key: str) -> str:
    value = r[key]
    if not isinstance(value, str):
        raise BadRecord(f"'{key}' is not text")
    return value


def _list(value, what: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadRecord(f"'{what}' is not a list")
    return value


def _object(item, what: str) -> dict:
    if not isinstance(item, dict):
        raise BadRecord(f"an item of '{what}' is not a JSON object")
    return item


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
    answers = [s for obj in _list(r.get("answers_objects"), "answers_objects")
               for s in _list(_object(obj, "answers_objects").get("spans"), "spans")]
    paragraphs = [Paragraph(str(c.get("title", "")), str(c.get("paragraph_text", "")), c.get("is_supporting"))
                  for c in (_object(c, "contexts") for c in _list(r.get("contexts"), "contexts"))]
    return QAExample(_id(r), _text(r, "question_text"), answers, paragraphs, [], _kind(answers))


def _musique(r: dict) -> QAExample:
    answers = _as_list(r.get("answer")) + _as_list(r.get("answer_aliases"))
    paragraphs = [Paragraph(str(p.get("title", "")), str(p.get("paragraph_text", "")), p.get("is_supporting"))
                  for p in (_object(p, "paragraphs") for p in _list(r.get("paragraphs"), "paragraphs"))]
    steps = (_object(s, "question_decomposition")
             for s in _list(r.get("question_decomposition"), "question_decomposition"))
    subs = [str(step["question"]) for step in steps if step.get("question")]
    return QAExample(_id(r), _text(r, "question"), answers, paragraphs, subs, _kind(answers))


def _raw_hotpot(r: dict) -> QAExample:
    """HotpotQA / 2Wiki raw ([[title, sentences]]) or HF layout ({title: [], sentences: []})."""
    context = r.get("context") or []
    if isinstance(context, dict):
        pairs = list(zip(_list(context.get("title"), "context.title"),
                         _list(context.get("sentences"), "context.sentences")))
    else:
        pairs = [_pair(c) for c in _list(context, "context")]
    facts = r.get("supporting_facts") or []
    if isinstance(facts, dict):
        support = set(map(str, _list(facts.get("title"), "supporting_facts.title")))
    else:
        support = {str(_pair(f, "supporting_facts")[0]) for f in _list(facts, "supporting_facts")}
    paragraphs = [Paragraph(str(title), _sentences(sentences), title in support if support else None)
                  for title, sentences in pairs]
    answers = _as_list(r.get("answer"))
    return QAExample(_id(r), _text(r, "question"), answers, paragraphs, [], _kind(answers))


def _pair(item, what: str = "context") -> tuple:
    if not isinstance(item, list) or len(item) < 2:
        raise BadRecord(f"an item of '{what}' is not a [title, ...] pair")
    return item[0], item[1]


def _sentences(value) -> str:
    sentences = [value] if isinstance(value, str) else _list(value, "sentences")
    return " ".join(str(s).strip() for s in sentences if str(s).strip())


def _strategyqa(r: dict) -> QAExample:
    return QAExample(_id(r), _text(r, "question"), ["yes" if r["answer"] else "no"], [], [], YES_NO)


def _webquestions(r: dict) -> QAExample:
    return QAExample(_id(r), _text(r, "qText"), _as_list(r.get("answers")), [], [], SPAN)


def _frames(r: dict) -> QAExample:
    answers = _as_list(r.get("answer")) or _as_list(r.get("Answer"))
    return QAExample(_id(r), _text(r, "Question"), answers, [], [], SPAN)


def _plain(r: dict) -> QAExample:
    """NQ-open, TriviaQA (CtrlA), PopQA, R1-Searcher, 2Wiki QA-only, DPR topics jsonl."""
    answers = _as_list(r.get("answers")) or _as_list(r.get("answer"))
    return QAExample(_id(r), _text(r, "question"), answers, [], [], _kind(answers))


_FORMATS: list[tuple[Callable[[dict], bool], Callable[[dict], QAExample]]] = [
    (lambda r: "question_text" in r and "contexts" in r, _ircot),
    (lambda r: "paragraphs" in r and "question" in r, _musique),
    (lambda r: "question" in r and isinstance(r.get("answer"), bool), _strategyqa),
    (lambda r: "question" in r and ("context" in r or "supporting_facts" in r), _raw_hotpot),
    (lambda r: "qText" in r, _webquestions),
    (lambda r: "Question" in r, _frames),
    (lambda r: "question" in r and ("answers" in r or "answer" in r), _plain),
]

