"""Index one document file (a note, a PDF...) as its own source, updated like a folder's file:
re-embedded only when it changed, removed from the index when it is gone."""
from __future__ import annotations

import os
from pathlib import Path

from models.errors import BadInputError

from .collections import DEFAULT, check_name, with_collection
from .folder import Summary, source_name, update_listed
from .names import safe_name
from .progress import ProgressCallback, StopCheck
from .sources import check_document_file
from .store import IndexStore
from .walk import DEFAULT_MAX_SIZE


def index_file(store: IndexStore, embedder, file: Path, on_progress: ProgressCallback | None = None,
               should_stop: StopCheck | None = None, max_size: int = DEFAULT_MAX_SIZE,
               collection: str = DEFAULT) -> Summary:
    check_name(collection)
    file = check_document_file(file).resolve()
    try:
        stat = os.stat(file)
    except OSError as exc:
        raise BadInputError(f"cannot read {safe_name(str(file))}: {exc.strerror}") from None
    summary = Summary()
    source = summary.source = source_name(file)
    collections = with_collection(store.meta.get("sources", {}).get(source), collection)
    store.begin_source(source, "file", collections=collections)  # listed (incomplete) from now on
    rel = safe_name(file.name)
    if stat.st_size > max_size:
        summary.skipped.append((rel, f"larger than {max_size // (1024 * 1024)} MB"))
        files = []
    else:
        files = [(rel, file, stat)]
    update_listed(store, embedder, source, files, summary, on_progress, should_stop)
    if summary.skipped and not (summary.indexed or summary.updated or summary.unchanged):
        store.remove_source(source)  # nothing of it is indexed: no empty source is left listed
        raise BadInputError(f"cannot index {rel}: {summary.skipped[0][1]}")
    store.meta.setdefault("sources", {})[source] = {"kind": "file", "collections": collections}
    store.finish()
    return summary
