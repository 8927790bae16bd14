"""What `assistant index status` shows about an index (a mixin of IndexStore): its sources with
their counts, totals, size on disk, last update and whether it has a vector index, as a typed
IndexStatus."""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from .store_errors import guarded
from .store_tables import quote


@dataclass(frozen=True)
class SourceStatus:
    name: str  # as recorded (names.safe_name of a path)
    kind: str  # folder, wikipedia, passages or dataset; "" when not recorded
    documents: int
    passages: int
    incomplete: bool  # its run has not ended: still running, or interrupted
    file: str = ""  # a dataset source's file, as shown
    cluster: bool = False  # begun on a Ray cluster
    recorded: Mapping[str, object] = field(default_factory=dict, compare=False)  # all its metadata holds

    def as_dict(self) -> dict:
        """As `index status --json` prints it: the recorded metadata with the counts."""
        return dict(self.recorded, documents=self.documents, passages=self.passages)


@dataclass(frozen=True)
class IndexStatus:
    path: str
    embedding_model: str | None
    documents: int
    passages: int
    disk_bytes: int
    updated: float | None  # time of the last finished run; None: never
    sources: tuple[SourceStatus, ...]  # sorted by name
    vector_index: bool  # a vector index is built (IVF-HNSW-SQ, or IVF-PQ on older indices; else exact search)
    problems: tuple[str, ...] = ()  # what index/health.py finds missing or unreadable; () when healthy
    waiting: int = 0  # passages searchable by full text only: their vectors are not written yet
    document_bytes: int = 0  # the indexed files' own size (what `index collections` sums per collection)

    def source(self, name: str) -> SourceStatus | None:
        return next((source for source in self.sources if source.name == name), None)

    def as_dict(self) -> dict:
        """As `index status --json` prints it."""
        return {"path": self.path, "embedding_model": self.embedding_model, "documents": self.documents,
                "passages": self.passages, "disk_bytes": self.disk_bytes, "updated": self.updated,
                "sources": {source.name: source.as_dict() for source in self.sources},
                "vector_index": self.vector_index, "problems": list(self.problems),
                "waiting_for_vectors": self.waiting, "document_bytes": self.document_bytes}


def folder_size(path: Path) -> int:
    """Bytes under `path`; files that a writer removes meanwhile are simply not counted."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(folder, name)).st_size
    return total


class StatusReport:
    """Needs from its IndexStore: `path`, `meta`, `documents`, `passages`, `has_vector_index`,
    `errors`."""

    @guarded
    def status(self) -> IndexStatus:
        """What `assistant index status` shows. A source whose run has not ended (still
        running, or interrupted) is `incomplete`; passages of an unfinished document (left by a
        kill) are not counted, `problems` lists what index/health.py finds missing, and `waiting` the
        passages whose vectors a run has not written yet (found by full text only until then)."""
        from .health import problems, searchable_filter

        documents, passages = self.documents, self.passages
        searchable = searchable_filter(self)  # passages of an unfinished document are not counted
        sources = []
        for name, info in sorted(self.meta.get("sources", {}).items()):
            info = dict(info) if isinstance(info, dict) else {}
            where = f"source = {quote([name])}"
            sources.append(SourceStatus(
                name, str(info.get("kind") or ""), documents.count_rows(where),
                passages.count_rows(f"{where} AND {searchable}" if searchable else where),
                incomplete=bool(info.get("incomplete")), file=str(info.get("file") or ""),
                cluster=bool(info.get("cluster")), recorded=MappingProxyType(info)))
        disk = folder_size(self.path)
        return IndexStatus(str(self.path), self.meta.get("embedding_model"), documents.count_rows(),
                           passages.count_rows(searchable), disk, self.meta.get("updated"), tuple(sources),
                           self.has_vector_index(), tuple(problems(self)), waiting=self.waiting_count(searchable),
                           document_bytes=sum(self.document_bytes().values()))

    def document_bytes(self) -> dict[str, int]:
        """Bytes of the indexed documents (the files' own size), per source."""
        totals: dict[str, int] = {}
        with self.errors():
            rows = self.documents.count_rows()
            if not rows:
                return totals
            data = self.documents.search().select(["source", "size"]).limit(rows).to_arrow().to_pylist()
        for row in data:
            totals[row["source"]] = totals.get(row["source"], 0) + int(row["size"] or 0)
        return totals
