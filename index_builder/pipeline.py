"""Embed and write documents to the index in batches, reporting progress, cancellable."""
from __future__ import annotations

import contextlib
from typing import Iterable

from models.errors import Cancelled

from .chunking import Chunk, bounded_heading
from .documents import Document, passage_id
from .names import valid_text
from .prefetch import with_passages
from .progress import Progress, ProgressCallback, StopCheck
from .store import DocumentRecord, IndexStore

EMBED_BATCH_PASSAGES = 256
EMBED_SLICE = 16  # passages embedded between two looks at should_stop (~0.2 s on one slow core)
# A static embedder (model2vec) embeds thousands of passages a second: with 256 a batch the
# Lance commits (~50 ms each) would take a third of the time. Its own sizes, when it has them.
STAGING_SUFFIX = "~new"  # doc id suffix of a replacing large document's passages until it is complete


def passage_row(doc: Document, ordinal: int, chunk: Chunk, vector, doc_id: str | None = None) -> dict:
    """One passages-table row. Titles and headings are bounded, and text that UTF-8 cannot hold
    (lone surrogates from a JSON escape) is replaced, so that any source can be stored."""
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


class _Batches:
    """Passages waiting to be embedded and written together, and the documents they complete.

    A document's row is the commit point of its passages, so it is written in the batch that holds
    its last passage; a large document's earlier passages go out in earlier batches. While its
    row is missing they are orphans (removed when a run starts, or at once when the run is
    cancelled). A large document that replaces an earlier version writes them under a staging
    doc id, so the old version stays whole until the new one is complete.
    """

    def __init__(self, store: IndexStore, embedder, progress: Progress, on_progress, should_stop=None):
        self.store, self.embedder, self.progress, self.on_progress = store, embedder, progress, on_progress
        self.should_stop = should_stop
        self.items: list[tuple[Document, int, Chunk]] = []  # (document, ordinal, passage)
        self.complete: list[tuple[Document, int]] = []  # documents whose last passage is here: (doc, passages)
        self.open: dict[str, str] = {}  # doc id -> doc id its already written passages carry
        self.written = 0

    @property
    def full(self) -> bool:
        return len(self.items) >= (getattr(self.embedder, "batch_passages", None) or EMBED_BATCH_PASSAGES)

    def flush(self, open_doc: Document | None = None) -> None:
        """Embed and write what is pending; `open_doc` has more passages still to come."""
        if not self.items and not self.complete:
            return
        vectors = self._embed([embedding_text(d, c.text, c.section) for d, _, c in self.items])
        replace, promote = [], []
        for doc, _ in self.complete:
            staged = self.open.pop(doc.doc_id, None)
            if staged is None:
                if doc.replaces:
                    replace.append(doc.doc_id)
            elif staged != doc.doc_id:
                promote.append((doc.doc_id, staged))
        if open_doc is not None and open_doc.doc_id not in self.open:
            doc_id = open_doc.doc_id
            self.open[doc_id] = doc_id + STAGING_SUFFIX if open_doc.replaces else doc_id
        rows = [passage_row(d, n, c, v, self.open.get(d.doc_id)) for (d, n, c), v in zip(self.items, vectors)]
        records = [document_record(d, count) for d, count in self.complete]
        committed_bytes = sum(d.size for d, _ in self.complete)
        for doc_id, staged in promote:  # the old version goes only now, then the new one takes its id
            self.store.remove_documents([doc_id])
            self.store.rename_doc_id(staged, doc_id)
        # With no records (only passages of a document still open) nothing is committed yet.
        self.store.write_batch(rows, records, replace=replace)
        self.written += len(rows)
        self.progress.passages_done += len(rows)
        self.progress.work_done += committed_bytes
        if self.on_progress:
            self.on_progress(self.progress)
        self.items, self.complete = [], []

    def _embed(self, texts: list[str]) -> list:
        """Vectors of `texts`, a slice at a time: a batch of 256 took tens of seconds on one slow
        core, and Ctrl-C waited for it. Stopped, Cancelled is raised before anything is written."""
        vectors: list = []
        step = getattr(self.embedder, "slice_passages", None) or EMBED_SLICE
        for start in range(0, len(texts), step):
            if self.should_stop and self.should_stop():
                raise Cancelled()
            vectors.extend(self.embedder.encode(texts[start:start + step]))
        return vectors

    def discard(self) -> None:
        """Stopped: what is not written yet is left for the next run, and the passages of a
        document cut in the middle leave the index now (no orphans to find in between)."""
        self.items, self.complete = [], []
        self.drop_open()

    def drop_open(self) -> None:
        """Cancelled inside a document: its passages written so far leave the index now."""
        self.store.delete_passages(list(self.open.values()))
        self.open.clear()


def write_documents(
    store: IndexStore,
    embedder,
    documents: Iterable[Document],
    progress: Progress | None = None,
    on_progress: ProgressCallback | None = None,
    should_stop: StopCheck | None = None,
) -> int:
    """Embed and write documents in batches of EMBED_BATCH_PASSAGES passages (a large document
    spans several); each batch commits as a whole. Returns passages written.

    `should_stop` is asked before each document and between slices of a batch's embedding; when
    it says True, nothing more is written, what the batches had committed stays, the passages of
    a document cut in the middle are removed, and Cancelled is raised, so a re-run resumes where
    this one stopped.
    """
    progress = progress or Progress()
    batches = _Batches(store, embedder, progress, on_progress, should_stop)
    # Read, extracted and chunked on a producer thread while this one embeds and writes.
    with contextlib.closing(with_passages(documents)) as made:
        try:
            while True:
                if should_stop and should_stop():  # before the next document is taken
                    raise Cancelled()
                item = next(made, None)
                if item is None:
                    break
                doc, passages = item
                progress.current = doc.path
                for count, chunk in enumerate(passages):
                    batches.items.append((doc, count, chunk))
                    if batches.full:
                        batches.flush(open_doc=doc)
                batches.complete.append((doc, len(passages)))
                if batches.full:
                    batches.flush()
            batches.flush()
        except Cancelled:
            batches.discard()
            raise
    if should_stop and should_stop():  # all written, but the caller's closing steps (removals) are not done
        raise Cancelled()
    return batches.written
