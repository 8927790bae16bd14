"""Embed and write documents to the index in batches, reporting progress."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from .documents import Document, passage_id
from .store import DocumentRecord, IndexStore

EMBED_BATCH_PASSAGES = 256


@dataclass
class Progress:
    """What a progress bar needs; `total_files` is None while still unknown."""

    files_done: int = 0
    total_files: int | None = None
    passages_done: int = 0
    started: float = field(default_factory=time.monotonic)
    current: str = ""

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
        if not self.total_files or not self.files_done:
            return None
        return (self.total_files - self.files_done) / self.files_per_second


ProgressCallback = Callable[[Progress], None]


def passage_rows(doc: Document, vectors) -> list[dict]:
    rows = []
    for ordinal, (chunk, vector) in enumerate(zip(doc.passages(), vectors)):
        rows.append({
            "id": passage_id(doc.doc_id, ordinal),
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
) -> int:
    """Embed and write documents; batches commit together. Returns passages written."""
    progress = progress or Progress()
    batch: list[Document] = []
    batch_passages = 0
    written = 0

    def flush():
        nonlocal batch, batch_passages, written
        if not batch:
            return
        texts = [embedding_text(d, c.text, c.section) for d in batch for c in d.passages()]
        vectors = embedder.encode(texts)
        rows, offset = [], 0
        for doc in batch:
            n = len(doc.passages())
            rows.extend(passage_rows(doc, vectors[offset:offset + n]))
            offset += n
        records = [
            DocumentRecord(d.doc_id, d.source, d.path, d.title, d.content_hash, d.size, d.mtime,
                           len(d.passages()))
            for d in batch
        ]
        store.write_batch(rows, records)
        written += len(rows)
        progress.files_done += len(batch)
        progress.passages_done += len(rows)
        if on_progress:
            on_progress(progress)
        batch, batch_passages = [], 0

    for doc in documents:
        batch.append(doc)
        batch_passages += len(doc.passages())
        progress.current = doc.path
        if batch_passages >= EMBED_BATCH_PASSAGES:
            flush()
    flush()
    return written
