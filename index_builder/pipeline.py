"""Write documents to the index in two phases: their text first (searchable by full text as soon
as each batch commits), then their vectors (embedding.py), reporting progress, cancellable."""
from __future__ import annotations

import contextlib
import time
from typing import Iterable

from models.errors import Cancelled

from .chunking import Chunk, bounded_heading
from .documents import Document, passage_id
from .embedding import EMBED_BATCH_PASSAGES, EMBED_SLICE, embed_waiting, pause_point  # noqa: F401
from .names import valid_text
from .prefetch import with_passages
from .progress import FINISHING, READING, Progress, ProgressCallback, StopCheck
from .store import DocumentRecord, IndexStore

TEXT_BATCH_PASSAGES = 2048  # passages written per text commit (each commit costs ~50 ms of Lance)
TEXT_BATCH_SECONDS = 1.0  # ... or fewer, once a batch has waited this long: new text is soon searchable


def passage_row(doc: Document, ordinal: int, chunk: Chunk, vector, doc_id: str | None = None) -> dict:
    """One passages-table row (`vector` None: it waits for the embedding phase). Titles and
    headings are bounded, and text that UTF-8 cannot hold (lone surrogates from a JSON escape)
    is replaced, so that any source can be stored."""
    title, section = _bounded(doc.title), _bounded(chunk.section)
    text = valid_text(chunk.text)
    return {
        "id": valid_text(chunk.id) if chunk.id else passage_id(doc.doc_id, ordinal),
        "doc_id": doc_id or doc.doc_id,
        "source": valid_text(doc.source),
        "path": valid_text(doc.path),
        "title": title,
        "section": section,
        "page": chunk.page if chunk.page is not None else 0,
        "ordinal": ordinal,
        "text": text,
        "search_text": " ".join(x for x in (title, section, text) if x),
        "vector": vector,
    }


def _bounded(heading: str) -> str:
    return bounded_heading(valid_text(heading))


def embedding_text(doc: Document, text: str, section: str) -> str:
    """Titles carry much of what a passage is about; they go into its vector too."""
    head = " - ".join(x for x in (_bounded(doc.title), _bounded(section)) if x)
    text = valid_text(text)
    return f"{head}: {text}" if head else text


def document_record(doc: Document, passages: int) -> DocumentRecord:
    """The documents-table row that commits a document's `passages` passages."""
    return DocumentRecord(doc.doc_id, valid_text(doc.source), valid_text(doc.path), _bounded(doc.title),
                          doc.content_hash, doc.size, doc.mtime, passages)


class _TextBatches:
    """Documents waiting to be written as text together. A document is written whole, in one
    batch, with its documents row (the commit point: passages first, then the row, so a kill in
    between leaves orphans that the next run deletes); an earlier version it replaces leaves in
    the same batch."""

    def __init__(self, store: IndexStore, progress: Progress, on_progress):
        self.store, self.progress, self.on_progress = store, progress, on_progress
        self.rows: list[dict] = []
        self.records: list[DocumentRecord] = []
        self.replace: list[str] = []
        self.bytes = 0
        self.written = 0
        self.since = time.monotonic()

    def add(self, doc: Document, passages: list[Chunk]) -> None:
        self.rows.extend(passage_row(doc, n, chunk, None) for n, chunk in enumerate(passages))
        self.records.append(document_record(doc, len(passages)))
        if doc.replaces:
            self.replace.append(doc.doc_id)
        self.bytes += doc.size
        if len(self.rows) >= TEXT_BATCH_PASSAGES or time.monotonic() - self.since >= TEXT_BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.records:
            self.store.write_batch(self.rows, self.records, replace=self.replace)
            self.store.written_rows(len(self.rows))
            self.written += len(self.rows)
            self.progress.passages_done += len(self.rows)
            self.progress.work_done += self.bytes
            if self.on_progress:
                self.on_progress(self.progress)
        self.rows, self.records, self.replace, self.bytes = [], [], [], 0
        self.since = time.monotonic()


def write_text(store: IndexStore, documents: Iterable[Document], progress: Progress,
               on_progress: ProgressCallback | None = None, should_stop: StopCheck | None = None) -> int:
    """The reading phase: each document's passages written without vectors, searchable by full
    text once its batch commits. Returns passages written. Stopped, what is committed stays."""
    batches = _TextBatches(store, progress, on_progress)
    # Read, extracted and chunked on a producer thread while this one writes.
    with contextlib.closing(with_passages(documents)) as made:
        for doc, passages in made:
            if should_stop and should_stop():
                batches.flush()  # read whole already: written, so the next run need not read it again
                raise Cancelled()
            if not batches.written and not batches.rows:
                store.mark_pending()  # before the first passage without a vector is written
            progress.current = doc.path
            batches.add(doc, passages)
        batches.flush()
    return batches.written


def write_documents(
    store: IndexStore,
    embedder,
    documents: Iterable[Document],
    progress: Progress | None = None,
    on_progress: ProgressCallback | None = None,
    should_stop: StopCheck | None = None,
) -> int:
    """Write documents as text (phase "reading"), refresh the full-text index, then embed every
    passage of the index that waits for a vector (phases "loading", "embedding": this run's, and
    those a killed or stopped run left). Returns the passages written as text.

    `should_stop` is asked between documents and between slices of embedding; when it says
    True, what is committed stays (text, and the vectors of the batches written), and Cancelled
    is raised, so a re-run resumes where this one stopped.
    """
    progress = progress or Progress()
    progress.begin(READING)
    written = write_text(store, documents, progress, on_progress, should_stop)
    if written:
        store.refresh_full_text()  # the whole text findable through the index before the long phase
    pause_point()
    embed_waiting(store, embedder, progress, on_progress, should_stop)
    progress.begin(FINISHING)  # what the indexer does after (removals, the search indexes) is timed too
    if should_stop and should_stop():  # all written, but the caller's closing steps (removals) are not done
        raise Cancelled()
    return written
