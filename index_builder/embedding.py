"""The embedding phase of a run: vectors for every passage that waits for one (written as text
by this run, or left by a killed or stopped one), a commit per batch, cancellable between slices.

Before it, `pause_point` lets a test hold the indexer between the two phases without sleeps:
with ASSISTANT_INDEX_PAUSE_FILE set, the indexer creates that file once the text is written and
waits until it is removed (or the process is killed)."""
from __future__ import annotations

import os
import time
from pathlib import Path

from models.errors import Cancelled

from .progress import EMBEDDING, LOADING, Progress, ProgressCallback, StopCheck

EMBED_BATCH_PASSAGES = 256  # vectors written per commit at least (a static embedder gives its own size)
# ... and a commit waits until this many seconds passed since the last one (or 8 batches are
# pending): each is a Lance merge whose cost grows with the table, ~0.4-1.7 s on 75,000 rows.
COMMIT_SECONDS = 15.0
COMMIT_MAX_BATCHES = 8
EMBED_SLICE = 16  # passages embedded between two looks at should_stop (~0.2 s on one slow core)
# A static embedder (model2vec) embeds thousands of passages a second: with 256 a batch the
# Lance commits would take much of the time. Its own sizes, when it has them.
PAUSE_ENV = "ASSISTANT_INDEX_PAUSE_FILE"
_PAUSE_POLL = 0.05


def row_text(row: dict) -> str:
    """What a passage's vector is made from: its title and section, then its text (as
    pipeline.embedding_text makes it from the document)."""
    head = " - ".join(x for x in (row.get("title") or "", row.get("section") or "") if x)
    return f"{head}: {row['text']}" if head else row["text"]


def pause_point() -> None:
    """A test's hold between the phases (ASSISTANT_INDEX_PAUSE_FILE); nothing otherwise."""
    marker = os.environ.get(PAUSE_ENV)
    if not marker:
        return
    path = Path(marker)
    path.touch()
    while path.exists():
        time.sleep(_PAUSE_POLL)


def load_passage_model(embedder) -> None:
    """Load what encodes passages now (its own phase), not inside the first batch."""
    load = getattr(embedder, "load", None)
    if callable(load):
        load()


def embed_waiting(store, embedder, progress: Progress, on_progress: ProgressCallback | None = None,
                  should_stop: StopCheck | None = None) -> int:
    """Give every waiting passage its vector; returns passages embedded. Stopped, the vectors
    made so far are written and Cancelled is raised: the rest wait for the next run."""
    total = store.waiting_count()
    if not total:
        store.vectors_done()
        return 0
    progress.embed_total = total
    progress.begin(LOADING)
    if on_progress:
        on_progress(progress)
    load_passage_model(embedder)
    progress.begin(EMBEDDING)
    if on_progress:
        on_progress(progress)
    commit = getattr(embedder, "batch_passages", None) or EMBED_BATCH_PASSAGES
    step = getattr(embedder, "slice_passages", None) or EMBED_SLICE
    pending: list[dict] = []
    last_commit = [time.monotonic()]

    def write() -> None:
        store.fill_vectors(pending)
        pending.clear()
        last_commit[0] = time.monotonic()

    def due() -> bool:
        return len(pending) >= commit and (time.monotonic() - last_commit[0] >= COMMIT_SECONDS
                                           or len(pending) >= COMMIT_MAX_BATCHES * commit)

    try:
        for rows in store.waiting_rows(max(commit, step)):
            for start in range(0, len(rows), step):
                if should_stop and should_stop():
                    raise Cancelled()
                part = rows[start:start + step]
                for row, vector in zip(part, embedder.encode([row_text(r) for r in part])):
                    row["vector"] = vector
                pending.extend(part)
                progress.passages_embedded += len(part)
                progress.current = part[-1].get("path") or ""
                if due():
                    write()
                progress.report(on_progress)
        write()
    except Cancelled:
        write()  # what is embedded is kept
        raise
    store.vectors_done()
    if on_progress:
        on_progress(progress)
    return progress.passages_embedded
