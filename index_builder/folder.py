"""Index a folder of documents incrementally: new and changed files are (re)embedded,
unchanged ones skipped without reading, deleted ones removed."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from .chunking import markdown_sections, Section
from .documents import Document, content_hash, document_id
from .pipeline import Progress, ProgressCallback, StopCheck, write_documents
from .store import IndexStore

TEXT_SUFFIXES = {".txt", ".md", ".markdown"}
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"}


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


def walk(root: Path) -> Iterator[Path]:
    """Files under root, skipping hidden and tool folders; links are not followed."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def read_text_document(path: Path, data: bytes, source: str, rel: str) -> Document:
    text = data.decode("utf-8", errors="replace")
    if path.suffix.lower() in {".md", ".markdown"}:
        title, sections = markdown_sections(text)
    else:
        title, sections = "", [Section("", text)]
    return Document(source=source, path=rel, title=title or path.stem.replace("_", " "), sections=sections)


def index_folder(store: IndexStore, embedder, folder: Path,
                 on_progress: ProgressCallback | None = None,
                 should_stop: StopCheck | None = None) -> Summary:
    folder = folder.resolve()
    if not folder.is_dir():
        from models.errors import AssistantError

        raise AssistantError(f"not a folder: {folder}")
    source = str(folder)
    summary = Summary()
    store.remove_orphan_passages()
    known = store.documents_of(source)
    files = list(walk(folder))
    seen: set[str] = set()
    progress = Progress(total_files=len(files))

    def changed_documents() -> Iterator[Document]:
        for path in files:
            rel = path.relative_to(folder).as_posix()
            seen.add(rel)
            progress.files_done += 1
            progress.report(on_progress)
            if path.suffix.lower() not in TEXT_SUFFIXES:
                summary.skipped.append((rel, f"unsupported file type {path.suffix or '(none)'}"))
                continue
            try:
                stat = path.stat()
                record = known.get(rel)
                if record and record.size == stat.st_size and record.mtime == stat.st_mtime:
                    summary.unchanged += 1
                    continue
                data = path.read_bytes()
            except OSError as exc:
                summary.skipped.append((rel, f"cannot read: {exc.strerror}"))
                continue
            digest = content_hash(data)
            if record and record.content_hash == digest:
                summary.unchanged += 1
                continue
            doc = read_text_document(path, data, source, rel)
            doc.content_hash, doc.size, doc.mtime = digest, stat.st_size, stat.st_mtime
            doc.replaces = record is not None
            if not doc.passages():
                summary.skipped.append((rel, "no text"))
                continue
            (summary.updated if record else summary.indexed).append(rel)
            yield doc

    summary.passages = write_documents(store, embedder, changed_documents(), progress, on_progress,
                                       should_stop)
    gone = [rel for rel in known if rel not in seen]
    store.remove_documents(document_id(source, rel) for rel in gone)
    summary.removed = gone
    store.meta.setdefault("sources", {})[source] = {"kind": "folder"}
    store.finish()
    return summary
