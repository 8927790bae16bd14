"""Index a folder of documents incrementally: new and changed files are (re)embedded,
unchanged ones skipped without re-embedding, deleted ones removed.

A folder is one source. Sources never store a file twice: a folder inside an indexed folder of
the same collection is updated as part of that folder's source, a folder holding indexed
folders or files absorbs their sources, and across collections a file moves to the innermost
source, labelled with the outer one's collections too (overlap.py). The summary says which happened.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping

from models.errors import BadInputError

from .collections import DEFAULT, check_name, collections_of, with_collection
from .documents import Document, content_hash, document_id
from .extract import READ_AS, Unreadable, extract, read_as
from .names import safe_name
from .overlap import absorb, enclosing_folders, merged, move_out_of, split_inner_sources
from .pipeline import write_documents
from .progress import Progress, ProgressCallback, StopCheck
from .resume import resume_options
from .sources import check_folder
from .store import IndexStore
from .walk import DEFAULT_MAX_SIZE, cannot_enter, walk_folder, walks_into

UNKNOWN_MTIME = -1.0  # recorded when a file changed while it was read: the next run reads it again


@dataclass
class Summary:
    indexed: list[str] = field(default_factory=list)  # new documents
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    passages: int = 0
    source: str = ""  # the source updated: the folder's, or that of an indexed folder holding it
    notes: list[str] = field(default_factory=list)  # how this run's folder met other sources

    def line(self) -> str:
        counts = (f"{len(self.indexed)} indexed, {len(self.updated)} updated, {self.unchanged} unchanged, "
                  f"{len(self.removed)} removed, {len(self.skipped)} skipped; {self.passages} passages written")
        return "; ".join([counts, *self.notes])


def source_name(folder: Path) -> str:
    """The name a (resolved) folder is recorded under as a source: its path as a safe name."""
    return safe_name(str(folder))


def _enclosing_source(store: IndexStore, folder: Path, index_path: Path, collection: str) -> Path | None:
    """The indexed folder in this collection whose walk reaches `folder`, if there is one (none
    when `folder` is a source of its own: it is updated itself)."""
    if source_name(folder) in store.meta.get("sources", {}):
        return None
    for parent in folder.parents:
        info = store.meta.get("sources", {}).get(source_name(parent))
        if isinstance(info, dict) and info.get("kind") == "folder" and collection in collections_of(info) \
                and walks_into(parent, folder, exclude=[index_path]):
            return parent
    return None


def _outer_sources(store: IndexStore, folder: Path, index_path: Path) -> dict[str, list[str]]:
    """Indexed folders of other collections whose walk reaches `folder`: source -> collections."""
    return {name: labels for name, labels in enclosing_folders(store, source_name(folder)).items()
            if walks_into(Path(name), folder, exclude=[index_path])}


def source_reading(store: IndexStore, source: str) -> dict[str, int]:
    """How the source's files were read when it was last indexed completely: {} for an index built
    before formats were versioned (each then read as 1)."""
    info = store.meta.get("sources", {}).get(source)
    return dict(info.get("read_as") or {}) if isinstance(info, dict) else {}


def read_snapshot(path: Path) -> tuple[bytes, float]:
    """The file's bytes, and the modification time that goes with them: UNKNOWN_MTIME when the
    file changed while it was read, so that the next run reads it again (once)."""
    with open(path, "rb") as fh:
        before = os.fstat(fh.fileno())
        data = fh.read()
        after = os.fstat(fh.fileno())
    if after.st_mtime_ns != before.st_mtime_ns or after.st_size != len(data):
        return data, UNKNOWN_MTIME
    return data, after.st_mtime


def index_folder(store: IndexStore, embedder, folder: Path,
                 on_progress: ProgressCallback | None = None,
                 should_stop: StopCheck | None = None,
                 max_size: int = DEFAULT_MAX_SIZE, collection: str = DEFAULT) -> Summary:
    """Index a folder (again) into `collection`. Folders of other collections are not merged
    with it (each file stays in the source of its innermost folder, labelled with every
    collection that holds it): removing one collection keeps what another still holds."""
    check_name(collection)
    folder = check_folder(folder)
    shown = safe_name(str(folder))
    folder = folder.resolve()
    if (why := cannot_enter(str(folder))) is not None:
        raise BadInputError(f"cannot read folder {shown}: {why}")
    index_path = Path(store.path).resolve()
    if folder == index_path or index_path in folder.parents:
        raise BadInputError(f"{shown} is the index's own folder; index a folder of documents")
    summary = Summary()
    if (parent := _enclosing_source(store, folder, index_path, collection)) is not None:
        summary.notes.append(f"{source_name(folder)} is already indexed as part of {source_name(parent)}: "
                             "updated that source")
        folder = parent
    source = summary.source = source_name(folder)
    outer = _outer_sources(store, folder, index_path)  # of other collections: its files move out of them
    collections = merged(*outer.values(), with_collection(store.meta.get("sources", {}).get(source), collection))
    # listed (incomplete) from now on, with what a resumed run must be given again
    store.begin_source(source, "folder", collections=collections, resume=resume_options(collection, max_size))
    walked = walk_folder(folder, max_size, exclude=[index_path])
    summary.skipped.extend(walked.skipped)
    files, inner = split_inner_sources(store, source, walked, collections, summary.notes)  # each file once
    update_listed(store, embedder, source, files, summary, on_progress, should_stop, source_reading(store, source))
    absorb(store, inner, source, summary.notes)
    move_out_of(store, source, list(outer), summary.notes)
    store.meta.setdefault("sources", {})[source] = {"kind": "folder", "collections": collections,
                                                    "read_as": dict(READ_AS)}
    store.finish()
    return summary


def update_listed(store: IndexStore, embedder, source: str, files: list[tuple[str, Path, os.stat_result]],
                  summary: Summary, on_progress: ProgressCallback | None = None,
                  should_stop: StopCheck | None = None, read_before: Mapping[str, int] | None = None) -> None:
    """Bring `source`'s documents in line with the listed files (relative path, path, stat):
    new and changed ones (re)embedded, unchanged ones kept, unlisted ones removed. read_before:
    how the source's files were read when last indexed (`source_reading`); a file whose format is
    read differently now (extract.READ_AS) is read again, changed or not."""
    store.remove_orphan_passages()
    known = store.documents_of(source)
    current: set[str] = set()  # files whose passages are (now) in the index
    touched: dict[str, float] = {}  # same content, new mtime: recorded without re-embedding
    read_again: list[str] = []  # unchanged, but their format is read differently now
    before = read_before or {}
    progress = Progress(total_files=len(files), total_work=sum(stat.st_size for _, _, stat in files))

    def changed_documents() -> Iterator[Document]:
        for rel, path, stat in files:
            progress.files_done += 1
            progress.current = rel
            progress.report(on_progress)
            record = known.get(rel)
            stale = record is not None and read_as(rel, before) != read_as(rel)
            if stale:
                read_again.append(rel)
            if record and not stale and record.size == stat.st_size and record.mtime == stat.st_mtime:
                summary.unchanged += 1
                current.add(rel)
                progress.total_work -= stat.st_size  # no work: the ETA leaves it out
                continue
            try:
                data, mtime = read_snapshot(path)
            except OSError as exc:
                summary.skipped.append((rel, f"cannot read: {exc.strerror}"))
                progress.total_work -= stat.st_size
                continue
            progress.total_work += len(data) - stat.st_size  # what is embedded: the bytes read
            digest = content_hash(data)
            if record and not stale and record.content_hash == digest and record.size == len(data):
                summary.unchanged += 1
                current.add(rel)
                touched[record.doc_id] = mtime
                progress.total_work -= len(data)
                continue
            try:
                extracted = extract(path, data)
            except Unreadable as exc:
                summary.skipped.append((rel, safe_name(str(exc))))
                progress.total_work -= len(data)
                continue
            # size and mtime are those of the bytes read, so an unchanged file matches them next time
            doc = Document(source=source, path=rel, title=extracted.title, sections=extracted.sections,
                           content_hash=digest, size=len(data), mtime=mtime, replaces=record is not None)
            (summary.updated if record else summary.indexed).append(rel)
            current.add(rel)
            yield doc

    summary.passages = write_documents(store, embedder, changed_documents(), progress, on_progress,
                                       should_stop)
    store.update_mtimes(touched)
    if read_again:
        formats = ", ".join(sorted({Path(rel).suffix.lower().lstrip(".") for rel in read_again}))
        summary.notes.append(f"{len(read_again)} unchanged files read again: this version reads {formats} "
                             "files better")
    # Deleted files, and files that can no longer be read: their old passages would be stale.
    gone = sorted(rel for rel in known if rel not in current)
    store.remove_documents(known[rel].doc_id for rel in gone)
    summary.removed = gone


__all__ = ["Summary", "index_folder", "document_id", "source_name"]
