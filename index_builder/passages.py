"""Index a passage file as the papers' corpora come: JSONL {id, title, text} or DPR TSV
(id, text, title). Passage ids are kept; consecutive passages of one title form one document
(so `index status` counts articles and a changed article is replaced as a whole).

Also read: KILT-style JSONL pages {wikipedia_title, text: [paragraphs]} and two-column TSV
`id<TAB>Title: X Text: Y`; these are split into ~100-word passages with ids id-0, id-1, ...
"""
from __future__ import annotations

import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from models.errors import BadInputError

from .chunking import Chunk, Section, chunk_sections
from .documents import Document, content_hash, document_id
from .names import safe_name
from .pipeline import write_documents
from .progress import Progress, ProgressCallback, StopCheck
from .sources import check_passage_file
from .store import IndexStore

_ID_KEYS = ("id", "_id", "docid", "doc_id", "pid", "wikipedia_id")
_TITLE_KEYS = ("title", "wikipedia_title", "name")
_TEXT_KEYS = ("text", "contents", "passage", "content", "paragraph")


@dataclass
class Record:
    id: str
    title: str
    text: str | list


@dataclass
class PassageSummary:
    passages: int = 0  # written now
    documents: int = 0
    unchanged: int = 0
    removed: int = 0
    bad_lines: int = 0
    duplicate_ids: int = 0  # passages whose id an earlier passage of the file already had

    def line(self) -> str:
        text = (f"{self.documents} documents ({self.passages} passages) written, {self.unchanged} unchanged, "
                f"{self.removed} removed, {self.bad_lines} unreadable lines skipped")
        if self.duplicate_ids:
            text += f", {self.duplicate_ids} passages with a duplicate id skipped (the first kept)"
        return text


def _first(row: dict, keys) -> object:
    for key in keys:
        if key in row and row[key] is not None:
            return row[key]
    return None


def read_jsonl(fh, summary: PassageSummary) -> Iterator[Record]:
    for number, line in enumerate(fh, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if number == 1:
                raise BadInputError("not a JSONL passage file: the first line is not JSON") from None
            summary.bad_lines += 1
            continue
        text = _first(row, _TEXT_KEYS) if isinstance(row, dict) else None
        if text is not None and not isinstance(text, str):  # {"text": {...}}: a bad row, not a crash
            summary.bad_lines += 1
            continue
        if text is None:
            if number == 1:
                raise BadInputError("not a passage file: JSONL rows need a 'text' field (and 'id', 'title')")
            summary.bad_lines += 1
            continue
        pid = _first(row, _ID_KEYS)
        yield Record(str(pid) if pid is not None else f"line{number}", str(_first(row, _TITLE_KEYS) or ""), text)


def read_tsv(fh, summary: PassageSummary) -> Iterator[Record]:
    csv.field_size_limit(sys.maxsize)
    rows = csv.reader(fh, delimiter="\t")
    header = next(rows, None)
    if header is None:
        return
    names = [h.strip().lstrip("\ufeff").lower() for h in header]
    if "text" in names:
        columns = {n: names.index(n) for n in ("id", "text", "title") if n in names}
    else:  # no header: DPR order, or two columns "id, Title: X Text: Y"
        columns = {"id": 0, "text": 1, "title": 2}
        rows = _chain([header], rows)
    for row in rows:
        if len(row) < 2:
            summary.bad_lines += 1
            continue
        pid = row[columns["id"]].lstrip("\ufeff") if "id" in columns else ""
        text = row[columns["text"]]
        title = row[columns["title"]] if "title" in columns and columns["title"] < len(row) else ""
        if not title and text.startswith("Title:") and " Text:" in text:
            title, _, text = text[len("Title:"):].partition(" Text:")
        yield Record(pid, title.strip(), text.strip())


def _chain(first, rest):
    yield from first
    yield from rest


MAX_BIT_ID = 1 << 28  # numeric ids below this are kept as bits: at most 32 MB


class SeenIds:
    """The passage ids met so far, compactly: the numeric ids passage files mostly use (DPR's
    21 million) as bits, any other id as a string."""

    def __init__(self):
        self.bits = bytearray()
        self.others: set[str] = set()

    def add(self, pid: str) -> bool:
        """Record `pid`; False when it was already there."""
        if pid.isdigit() and pid.isascii() and len(pid) <= 9 and (pid == "0" or pid[0] != "0") \
                and int(pid) < MAX_BIT_ID:
            byte, bit = divmod(int(pid), 8)
            if byte >= len(self.bits):
                self.bits.extend(bytes(max(byte + 1 - len(self.bits), len(self.bits))))
            if self.bits[byte] >> bit & 1:
                return False
            self.bits[byte] |= 1 << bit
            return True
        if pid in self.others:
            return False
        self.others.add(pid)
        return True


def unique_ids(records: Iterator[Record], summary: PassageSummary) -> Iterator[Record]:
    """The records whose id is new; a repeated id is counted in the summary and dropped (two
    passages with one id would both be stored, and a document keyed by it twice)."""
    seen = SeenIds()
    for record in records:
        if not record.id or seen.add(record.id):  # no id: numbered by position, never a duplicate
            yield record
        else:
            summary.duplicate_ids += 1


def _documents(records: Iterator[Record], source: str) -> Iterator[Document]:
    """Runs of consecutive records with one title become one document."""
    run: list[Record] = []

    def make(run: list[Record]) -> Document:
        chunks: list[Chunk] = []
        for record in run:
            if isinstance(record.text, list):  # a whole page as paragraphs: split it
                parts = chunk_sections([Section("", "\n\n".join(map(str, record.text)))])
                chunks.extend(Chunk(c.text, id=f"{record.id}-{i}") for i, c in enumerate(parts))
            elif record.text.strip():
                chunks.append(Chunk(" ".join(record.text.split()), id=record.id))
        key = run[0].id
        digest = content_hash(json.dumps([(c.id, c.text) for c in chunks] + [run[0].title]).encode("utf-8"))
        doc = Document(source=source, path=run[0].title or key, title=run[0].title, chunks=chunks,
                       content_hash=digest, size=sum(len(c.text) for c in chunks))
        doc.key = key
        return doc

    for record in records:
        if run and record.title != run[0].title:
            yield make(run)
            run = []
        run.append(record)
    if run:
        yield make(run)


def record_reader(file: Path):
    """read_jsonl or read_tsv for `file`, after checking that it is a passage file; else one line."""
    return _reader_for(check_passage_file(file))


def _reader_for(file: Path):
    return read_tsv if file.suffix.lower() == ".tsv" else read_jsonl


def open_passage_file(file: Path):
    return file.open("r", encoding="utf-8-sig", newline="")


def file_documents(records: Iterator[Record], summary: PassageSummary, source: str) -> Iterator[Document]:
    """A passage file's records as documents, repeated ids dropped: what both the single-machine
    path and the cluster's driver index."""
    return _documents(unique_ids(records, summary), source)


def index_passages(store: IndexStore, embedder, file: Path,
                   on_progress: ProgressCallback | None = None,
                   should_stop: StopCheck | None = None) -> PassageSummary:
    file = check_passage_file(file)
    shown = safe_name(str(file))
    reader = _reader_for(file)
    source = safe_name(str(file.resolve()))  # a name that is not UTF-8 is stored escaped
    summary = PassageSummary()
    store.begin_source(source, "passages")  # listed (incomplete) from now on, even if this run is killed
    store.remove_orphan_passages()
    known = {r.doc_id: r for r in store.documents_of(source).values()}
    current: set[str] = set()
    progress = Progress(total_bytes=file.stat().st_size)
    try:
        fh = open_passage_file(file)

        def changed() -> Iterator[Document]:
            for doc in file_documents(reader(fh, summary), summary, source):
                progress.files_done += 1
                progress.bytes_done = fh.buffer.tell()
                progress.current = doc.title
                progress.report(on_progress)
                if not doc.chunks:
                    continue
                current.add(doc.doc_id)
                record = known.get(doc.doc_id)
                if record and record.content_hash == doc.content_hash:
                    summary.unchanged += 1
                    continue
                doc.replaces = record is not None
                summary.documents += 1
                yield doc

        summary.passages = write_documents(store, embedder, changed(), progress, on_progress, should_stop)
    except UnicodeDecodeError:
        raise BadInputError(f"{shown} is not UTF-8 text; passage files must be UTF-8") from None
    except OSError as exc:
        raise BadInputError(f"cannot read {shown}: {exc.strerror}") from None
    if not current and not known:  # nothing read: no source to register, and no success to report
        store.remove_source(source)
        raise BadInputError(f"no passages in {shown} ({summary.bad_lines} unreadable lines); passage files are "
                            ".jsonl ({id, title, text}) or .tsv (id, text, title)")
    gone = [doc_id for doc_id in known if doc_id not in current]
    store.remove_documents(gone)
    summary.removed = len(gone)
    store.meta.setdefault("sources", {})[source] = {"kind": "passages"}
    store.finish()
    return summary
