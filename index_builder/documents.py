"""A source document as extracted text: title, sections (with heading path and page)."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterator

from .chunking import MAX_PASSAGE_WEIGHT, Chunk, Section, iter_chunks, text_weight, cut_by_weight


@dataclass
class Document:
    source: str  # the indexed source this document belongs to (folder, dump, passage file)
    path: str  # relative file path, or article title
    title: str
    sections: list[Section] = field(default_factory=list)
    content_hash: str = ""
    size: int = 0
    mtime: float = 0.0
    # Passage files arrive already split: their chunks are kept as they are (cut only when over
    # the passage size bound).
    chunks: list[Chunk] | None = None
    # True when an earlier version is in the index: its passages are deleted in the same batch.
    replaces: bool = False
    # What identifies the document within its source when its path is not unique (passage files
    # repeat titles): the first passage id. Defaults to the path.
    key: str | None = None

    @property
    def doc_id(self) -> str:
        return document_id(self.source, self.key or self.path)

    def passages(self) -> Iterator[Chunk]:
        """The document's passages, made as they are consumed, each within the size bound."""
        if self.chunks is None:
            return iter_chunks(self.sections)
        return bounded_chunks(self.chunks)


def bounded_chunks(chunks: list[Chunk], max_weight: int = MAX_PASSAGE_WEIGHT) -> Iterator[Chunk]:
    """Given passages, an over-long one cut in pieces: the first keeps its id, the others get
    `<id>~1`, `<id>~2`, ... (a passage without an id is numbered by its position anyway)."""
    for chunk in chunks:
        if text_weight(chunk.text) <= max_weight:
            yield chunk
            continue
        for number, piece in enumerate(cut_by_weight(chunk.text, max_weight)):
            pid = chunk.id if number == 0 or chunk.id is None else f"{chunk.id}~{number}"
            yield Chunk(piece, chunk.section, chunk.page, pid)


def document_id(source: str, path: str) -> str:
    """Stable across runs: derived from where the document is, not from its content."""
    # surrogatepass: a name that reached here undecoded still has an id (valid names: plain UTF-8)
    return hashlib.sha1(f"{source}\0{path}".encode("utf-8", "surrogatepass")).hexdigest()[:16]


def passage_id(doc_id: str, ordinal: int) -> str:
    return f"{doc_id}-{ordinal:05d}"


def content_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()
