"""A source document as extracted text: title, sections (with heading path and page)."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .chunking import Chunk, Section, chunk_sections


@dataclass
class Document:
    source: str  # the indexed source this document belongs to (folder, dump, passage file)
    path: str  # relative file path, or article title
    title: str
    sections: list[Section] = field(default_factory=list)
    content_hash: str = ""
    size: int = 0
    mtime: float = 0.0
    # Passage files arrive already split: their chunks are kept as they are.
    chunks: list[Chunk] | None = None
    # True when an earlier version is in the index: its passages are deleted in the same batch.
    replaces: bool = False
    # What identifies the document within its source when its path is not unique (passage files
    # repeat titles): the first passage id. Defaults to the path.
    key: str | None = None

    @property
    def doc_id(self) -> str:
        return document_id(self.source, self.key or self.path)

    def passages(self) -> list[Chunk]:
        return self.chunks if self.chunks is not None else chunk_sections(self.sections)


def document_id(source: str, path: str) -> str:
    """Stable across runs: derived from where the document is, not from its content."""
    return hashlib.sha1(f"{source}\0{path}".encode("utf-8")).hexdigest()[:16]


def passage_id(doc_id: str, ordinal: int) -> str:
    return f"{doc_id}-{ordinal:05d}"


def content_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()
