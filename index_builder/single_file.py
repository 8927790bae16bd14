"""Index one document file (a note, a PDF...) as its own source, updated like a folder's file:
re-embedded only when it changed, removed from the index when it is gone. A file an indexed
folder already holds is stored once (overlap.py)."""
from __future__ import annotations

import os
from pathlib import Path

from models.errors import BadInputError

from .collections import DEFAULT, check_name, with_collection
from .extract import READ_AS
from .folder import Summary, source_name, source_reading, update_listed
from .names import safe_name
from .overlap import folder_holding, merged
from .progress import ProgressCallback, StopCheck
from .resume import resume_options
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
    holder = folder_holding(store, source)
    if holder is not None and set(collections) <= set(holder.collections):
        return _part_of_folder(store, source, holder, summary)
    if holder is not None:  # moves out of the folder's source, once: see overlap.py
        collections = merged(holder.collections, collections)
        summary.notes.append(f"moved out of {holder.source}'s source, so that it is stored once; still "
                             f"in its collections ({', '.join(holder.collections)})")
    store.begin_source(source, "file", collections=collections,  # listed (incomplete) from now on
                       resume=resume_options(collection, max_size))
    rel = safe_name(file.name)
    if stat.st_size > max_size:
        summary.skipped.append((rel, f"larger than {max_size // (1024 * 1024)} MB"))
        files = []
    else:
        files = [(rel, file, stat)]
    update_listed(store, embedder, source, files, summary, on_progress, should_stop, source_reading(store, source))
    if summary.skipped and not (summary.indexed or summary.updated or summary.unchanged):
        store.remove_source(source)  # nothing of it is indexed: no empty source is left listed
        raise BadInputError(f"cannot index {rel}: {summary.skipped[0][1]}")
    if holder is not None:  # after its own source is complete: a kill before this keeps both
        store.remove_documents([holder.doc_id])
    store.meta.setdefault("sources", {})[source] = {"kind": "file", "collections": collections,
                                                    "read_as": dict(READ_AS)}
    store.finish()
    return summary


def _part_of_folder(store: IndexStore, source: str, holder, summary: Summary) -> Summary:
    """The file is already stored by an indexed folder of the asked collection: nothing is stored
    again (and a copy stored alone before this rule, same collections, goes)."""
    if source in store.meta.get("sources", {}):
        store.remove_source(source)
        summary.removed.append(source)
        summary.notes.append(f"its separate copy was removed: {holder.source} holds it")
    summary.source = holder.source
    summary.unchanged = 1
    summary.notes.append(f"already indexed as part of {holder.source} (collections "
                         f"{', '.join(holder.collections)}): not stored twice; `assistant index add "
                         f"{holder.source}` updates it")
    return summary
