"""Index a folder of documents incrementally: new and changed files are (re)embedded,
unchanged ones skipped without re-embedding, deleted ones removed."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from models.errors import AssistantError

from .documents import Document, content_hash, document_id
from .extract import Unreadable, extract
from .pipeline import Progress, ProgressCallback, StopCheck, write_documents
from .store import IndexStore
from .walk import DEFAULT_MAX_SIZE, walk_folder


@dataclass
class Summary:
    indexed: list[str] = field(default_factory=list)  # new documents
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    passages: int = 0

    def line(self) -> str:
        return (f"{len(self.indexed)} indexed, {len(self.updated)} updated, {self.unchanged} unchanged, "
                f"{len(self.removed)} removed, {len(self.skipped)} skipped; {self.passages} passages written")


def index_folder(store: IndexStore, embedder, folder: Path,
                 on_progress: ProgressCallback | None = None,
                 should_stop: StopCheck | None = None,
                 max_size: int = DEFAULT_MAX_SIZE) -> Summary:
    folder = Path(folder).expanduser()
    if not folder.exists():
        raise AssistantError(f"no such folder: {folder}")
    if not folder.is_dir():
        raise AssistantError(f"not a folder: {folder} (use `assistant index passages` or "
                             "`assistant index wikipedia` for single files)")
    folder = folder.resolve()
    source = str(folder)
    summary = Summary()
    store.remove_orphan_passages()
    known = store.documents_of(source)
    walked = walk_folder(folder, max_size)
    summary.skipped.extend(walked.skipped)
    current: set[str] = set()  # files whose passages are (now) in the index
    touched: dict[str, float] = {}  # same content, new mtime: recorded without re-embedding
    progress = Progress(total_files=len(walked.files))

    def changed_documents() -> Iterator[Document]:
        for rel, path, stat in walked.files:
            progress.files_done += 1
            progress.current = rel
            progress.report(on_progress)
            record = known.get(rel)
            if record and record.size == stat.st_size and record.mtime == stat.st_mtime:
                summary.unchanged += 1
                current.add(rel)
                continue
            try:
                data = path.read_bytes()
            except OSError as exc:
                summary.skipped.append((rel, f"cannot read: {exc.strerror}"))
                continue
            digest = content_hash(data)
            if record and record.content_hash == digest:
                summary.unchanged += 1
                current.add(rel)
                touched[record.doc_id] = stat.st_mtime
                continue
            try:
                extracted = extract(path, data)
            except Unreadable as exc:
                summary.skipped.append((rel, str(exc)))
                continue
            doc = Document(source=source, path=rel, title=extracted.title, sections=extracted.sections,
                           content_hash=digest, size=stat.st_size, mtime=stat.st_mtime,
                           replaces=record is not None)
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
    store.meta.setdefault("sources", {})[source] = {"kind": "folder"}
    store.finish()
    return summary


__all__ = ["Summary", "index_folder", "document_id"]
