"""Embed and write documents to the index in batches, reporting progress, cancellable."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from models.errors import AssistantError

from .documents import Document, passage_id
from .store import DocumentRecord, IndexStore

EMBED_BATCH_PASSAGES = 256


class Cancelled(AssistantError):
    """should_stop() said stop: everything up to the last committed batch is kept."""

    def __init__(self, message: str = "indexing cancelled; run the same command again to resume"):
        super().__init__(message)


@dataclass
class Progress:
    """What a progress bar needs; `total_files` is None while still unknown.

    Sources of unknown length (a Wikipedia dump) report `bytes_done` / `total_bytes` instead,
    and the ETA is taken from those.
    """

    files_done: int = 0  # files (or articles) looked at, whether embedded, unchanged or skipped
    total_files: int | None = None
    passages_done: int = 0
    started: float = field(default_factory=time.monotonic)
    current: str = ""
    bytes_done: int = 0
    total_bytes: int | None = None

    @property
    def elapsed(self) -> float:
        return max(1e-9, time.monotonic() - self.started)

    @property
    def passages_per_second(self) -> float:
        return self.passages_done / self.elapsed

    @property
    def files_per_second(self) -> float:
        return self.files_done / self.elapsed

    @property
    def eta_seconds(self) -> float | None:
        if self.total_bytes and self.bytes_done:
            return (self.total_bytes - self.bytes_done) * self.elapsed / self.bytes_done
        if not self.total_files or not self.files_done:
            return None
        return (self.total_files - self.files_done) / self.files_per_second


    def report(self, on_progress: "ProgressCallback | None", every: float = 0.2) -> None:
        """Call on_progress at most every `every` seconds (for loops that do no embedding)."""
        now = time.monotonic()
        if on_progress and now - self._last_report >= every:
            self._last_report = now
            on_progress(self)

    _last_report: float = field(default=0.0, repr=False)


ProgressCallback = Callable[[Progress], None]
StopCheck = Callable[[], bool]


def passage_rows(doc: Document, chunks, vectors) -> list[dict]:
    rows = []
    for ordinal, (chunk, vector) in enumerate(zip(chunks, vectors)):
        rows.append({
            "id": chunk.id or passage_id(doc.doc_id, ordinal),
            "doc_id": doc.doc_id,
            "source": doc.source,
            "path": doc.path,
            "title": doc.title,
            "section": chunk.section,
            "page": chunk.page if chunk.page is not None else 0,
            "ordinal": ordinal,
            "text": chunk.text,
            "search_text": " ".join(x for x in (doc.title, chunk.section, chunk.text) if x),
            "vector": vector,
        })
    return rows


def embedding_text(doc: Document, text: str, section: str) -> str:
    """Titles carry much of what a passage is about; they go into its vector too."""
    head = " - ".join(x for x in (doc.title, section) if x)
    return f"{head}: {text}" if head else text


def write_documents(
    store: IndexStore,
    embedder,
    documents: Iterable[Document],
    progress: Progress | None = None,
    on_progress: ProgressCallback | None = None,
    should_stop: StopCheck | None = None,
) -> int:
    """Embed and write documents; each batch commits as a whole. Returns passages written.

    `should_stop` is asked between batches; when it says True the current batch is committed
    and Cancelled is raised, so a re-run resumes where this one stopped.
    """
    progress = progress or Progress()
    batch: list[tuple[Document, list]] = []
    batch_passages = 0
    written = 0

    def flush():
        nonlocal batch, batch_passages, written
        if not batch:
            return
        texts = [embedding_text(d, c.text, c.section) for d, chunks in batch for c in chunks]
        vectors = embedder.encode(texts)
        rows, offset = [], 0
        for doc, chunks in batch:
            rows.extend(passage_rows(doc, chunks, vectors[offset:offset + len(chunks)]))
            offset += len(chunks)
        records = [
            DocumentRecord(d.doc_id, d.source, d.path, d.title, d.content_hash, d.size, d.mtime, len(chunks))
            for d, chunks in batch
        ]
        store.write_batch(rows, records, replace=[d.doc_id for d, _ in batch if d.replaces])
        written += len(rows)
        progress.passages_done += len(rows)
        if on_progress:
            on_progress(progress)
        batch, batch_passages = [], 0

    for doc in documents:
        chunks = doc.passages()
        batch.append((doc, chunks))
        batch_passages += len(chunks)
        progress.current = doc.path
        if batch_passages >= EMBED_BATCH_PASSAGES:
            flush()
            if should_stop and should_stop():
                raise Cancelled()
    flush()
    if should_stop and should_stop():
        raise Cancelled()  # all written, but the caller's closing steps (removals) are not done
    return written
