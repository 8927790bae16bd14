"""Index a folder of documents incrementally: new and changed files are (re)embedded,
unchanged ones skipped without re-embedding, deleted ones removed.

A folder is one source. Sources never overlap: a folder inside an already indexed folder is
updated as part of that folder's source, and a folder holding already indexed folders absorbs
their sources, so no file is stored twice. The summary says which happened.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from models.errors import BadInputError

from .collections import DEFAULT, check_name, collections_of, with_collection
from .documents import Document, content_hash, document_id
from .extract import Unreadable, extract
from .names import safe_name
from .overlap import absorb, split_lone_files
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


def _inside(path: str, parent: str) -> bool:
    return path != parent and path.startswith(parent.rstrip("/") + "/")


def _folder_sources(store: IndexStore, collection: str) -> list[str]:
    """The folder sources in exactly this collection (a shared one is merged with none)."""
    return [name for name, info in store.meta.get("sources", {}).items()
            if info.get("kind") == "folder" and collections_of(info) == [collection]]


def _enclosing_source(store: IndexStore, folder: Path, index_path: Path, collection: str) -> Path | None:
    """The indexed folder of this collection whose walk reaches `folder`, if there is one."""
    name = source_name(folder)
    for parent in folder.parents:
        if _inside(name, source_name(parent)) and source_name(parent) in _folder_sources(store, collection) \
                and walks_into(parent, folder, exclude=[index_path]):
            return parent
    return None


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
    with it: removing one collection never touches another's passages."""
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
    collections = with_collection(store.meta.get("sources", {}).get(source), collection)
    # listed (incomplete) from now on, with what a resumed run must be given again
    store.begin_source(source, "folder", collections=collections, resume=resume_options(collection, max_size))
    walked = walk_folder(folder, max_size, exclude=[index_path])
    summary.skipped.extend(walked.skipped)
    files, lone = split_lone_files(store, walked.files, collections, summary.notes)  # each file stored once
    update_listed(store, embedder, source, files, summary, on_progress, should_stop)
    _absorb_inner_sources(store, source, walked.folders, summary, collection)
    absorb(store, lone, source, summary.notes)
    store.meta.setdefault("sources", {})[source] = {"kind": "folder", "collections": collections}
    store.finish()
    return summary


def update_listed(store: IndexStore, embedder, source: str, files: list[tuple[str, Path, os.stat_result]],
                  summary: Summary, on_progress: ProgressCallback | None = None,
                  should_stop: StopCheck | None = None) -> None:
    """Bring `source`'s documents in line with the listed files (relative path, path, stat):
    new and changed ones (re)embedded, unchanged ones kept, unlisted ones removed."""
    store.remove_orphan_passages()
    known = store.documents_of(source)
    current: set[str] = set()  # files whose passages are (now) in the index
    touched: dict[str, float] = {}  # same content, new mtime: recorded without re-embedding
    progress = Progress(total_files=len(files), total_work=sum(stat.st_size for _, _, stat in files))

    def changed_documents() -> Iterator[Document]:
        for rel, path, stat in files:
            progress.files_done += 1
            progress.current = rel
            progress.report(on_progress)
            record = known.get(rel)
            if record and record.size == stat.st_size and record.mtime == stat.st_mtime:
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
            if record and record.content_hash == digest and record.size == len(data):
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
    # Deleted files, and files that can no longer be read: their old passages would be stale.
    gone = sorted(rel for rel in known if rel not in current)
    store.remove_documents(known[rel].doc_id for rel in gone)
    summary.removed = gone


def _absorb_inner_sources(store: IndexStore, source: str, walked: set[str], summary: Summary,
                          collection: str) -> None:
    """Indexed folders of this collection inside this one that its walk covered are now indexed
    here: their own sources go (after this one is complete, so an interruption loses nothing)."""
    for inner in _folder_sources(store, collection):
        if _inside(inner, source) and inner[len(source.rstrip("/")) + 1:] in walked:
            store.remove_documents(record.doc_id for record in store.documents_of(inner).values())
            store.meta["sources"].pop(inner, None)
            summary.notes.append(f"{inner} was indexed on its own: now part of this source")


__all__ = ["Summary", "index_folder", "document_id", "source_name"]
