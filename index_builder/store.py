"""The on-disk index: a LanceDB folder with a passages table, a documents table and meta.

Crash safety: a document's passages are written before its documents row, and a run starts
by deleting passages whose document has no row (left by an interrupted run), so a killed
build resumes without duplicates or losses.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pyarrow as pa

from models.errors import AssistantError

PASSAGES = "passages"
DOCUMENTS = "documents"
META_FILE = "assistant-index.json"
CLEANUP_AFTER_MINUTES = 5  # old table versions kept this long for readers still on them
VECTOR_INDEX_MIN_ROWS = 50_000  # below this, exact vector search is fast enough and exact
REBUILD_GROWTH = 4  # retrain the vector index once the table is this many times its trained size


class IndexError_(AssistantError):
    """The index is missing, from another embedding model, or damaged."""


def passages_schema(dim: int) -> pa.Schema:
    return pa.schema([
        pa.field("id", pa.string()),
        pa.field("doc_id", pa.string()),
        pa.field("source", pa.string()),
        pa.field("path", pa.string()),
        pa.field("title", pa.string()),
        pa.field("section", pa.string()),
        pa.field("page", pa.int32()),
        pa.field("ordinal", pa.int32()),
        pa.field("text", pa.string()),
        pa.field("search_text", pa.string()),  # title + section + text, full-text indexed
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


DOCUMENTS_SCHEMA = pa.schema([
    pa.field("doc_id", pa.string()),
    pa.field("source", pa.string()),
    pa.field("path", pa.string()),
    pa.field("title", pa.string()),
    pa.field("content_hash", pa.string()),
    pa.field("size", pa.int64()),
    pa.field("mtime", pa.float64()),
    pa.field("passages", pa.int32()),
    pa.field("indexed_at", pa.float64()),
])


@dataclass
class DocumentRecord:
    doc_id: str
    source: str
    path: str
    title: str
    content_hash: str
    size: int
    mtime: float
    passages: int


def _quote(values: Iterable[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def _column(table, name: str) -> list:
    """One column of every row, without reading the others (vectors are large)."""
    rows = table.count_rows()
    if not rows:
        return []
    return table.search().select([name]).limit(rows).to_arrow()[name].to_pylist()


class IndexStore:
    def __init__(self, path: Path, db, meta: dict):
        self.path = path
        self.db = db
        self.meta = meta

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path) -> "IndexStore":
        """Open an existing index for reading; a clear error when there is none."""
        path = Path(path)
        meta_path = path / META_FILE
        if not meta_path.is_file():
            raise IndexError_(f"no index at {path}; build one with `assistant index add FOLDER`")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise IndexError_(f"index metadata {meta_path} is unreadable ({exc}); rebuild the index") from None
        import lancedb

        return cls(path, lancedb.connect(str(path)), meta)

    @classmethod
    def open_or_create(cls, path: Path, embedding_model: str, dim: int) -> "IndexStore":
        path = Path(path)
        if (path / META_FILE).is_file():
            store = cls.open(path)
            store.check_embedding_model(embedding_model)
            return store
        path.mkdir(parents=True, exist_ok=True)
        import lancedb

        db = lancedb.connect(str(path))
        names = set(db.table_names())
        if PASSAGES not in names:
            from lancedb.index import FTS

            table = db.create_table(PASSAGES, schema=passages_schema(dim))
            # Created empty so that full-text search works even before a first finish():
            # rows added later are searched unindexed until the next optimize().
            table.create_index("search_text", config=FTS(with_position=False), replace=True)
        if DOCUMENTS not in names:
            db.create_table(DOCUMENTS, schema=DOCUMENTS_SCHEMA)
        meta = {"embedding_model": embedding_model, "dim": dim, "created": time.time(), "sources": {}}
        store = cls(path, db, meta)
        store.save_meta()
        return store

    def check_embedding_model(self, embedding_model: str) -> None:
        recorded = self.meta.get("embedding_model")
        if recorded and recorded != embedding_model:
            raise IndexError_(
                f"index {self.path} was built with embedding model {recorded}, not {embedding_model}; "
                "use the same model or build a new index with --index"
            )

    def save_meta(self) -> None:
        tmp = self.path / (META_FILE + ".tmp")
        tmp.write_text(json.dumps(self.meta, indent=1), encoding="utf-8")
        os.replace(tmp, self.path / META_FILE)

    @property
    def passages(self):
        return self.db.open_table(PASSAGES)

    @property
    def documents(self):
        return self.db.open_table(DOCUMENTS)

    # -- documents ---------------------------------------------------------------------
    def documents_of(self, source: str) -> dict[str, DocumentRecord]:
        table = self.documents.to_arrow()
        rows = table.filter(pa.compute.equal(table["source"], source)).to_pylist()
        return {
            r["path"]: DocumentRecord(**{k: r[k] for k in DocumentRecord.__dataclass_fields__})
            for r in rows
        }

    def remove_orphan_passages(self) -> int:
        """Delete passages whose document row is missing (an interrupted write)."""
        passage_docs = set(_column(self.passages, "doc_id"))
        known = set(_column(self.documents, "doc_id"))
        orphans = passage_docs - known
        self.delete_passages(orphans)
        return len(orphans)

    def delete_passages(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            self.passages.delete(f"doc_id IN ({_quote(ids[start:start + 500])})")

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            self.documents.delete(f"doc_id IN ({_quote(ids[start:start + 500])})")

    def write_batch(self, rows: list[dict], documents: list[DocumentRecord],
                    replace: Iterable[str] = ()) -> None:
        """Write `rows`, then commit their document rows (the commit point of a batch).

        `replace`: doc ids with an earlier version in the index, removed first. New documents
        need no delete: orphan passages of an interrupted run are removed when a run starts.
        """
        self.remove_documents(replace)
        if rows:
            self.passages.add(rows)
        now = time.time()
        self.documents.add([dict(d.__dict__, indexed_at=now) for d in documents])

    def remove_documents(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        self.delete_documents(ids)  # row first: a crash in between leaves orphans, cleaned later
        self.delete_passages(ids)

    def update_mtimes(self, mtimes: dict[str, float]) -> None:
        """Record new modification times of documents whose content did not change."""
        for doc_id, mtime in mtimes.items():
            self.documents.update(where=f"doc_id = {_quote([doc_id])}", values={"mtime": float(mtime)})

    def remove_source(self, source: str) -> int:
        """Forget a source and everything indexed from it; returns passages removed."""
        where = f"source = {_quote([source])}"
        removed = self.passages.count_rows(where)
        self.documents.delete(where)  # documents first, as in remove_documents
        self.passages.delete(where)
        self.meta.get("sources", {}).pop(source, None)
        self.finish()
        return removed

    def status(self) -> dict:
        """What `assistant index status` shows."""
        documents = self.documents
        sources = {}
        for name, info in sorted(self.meta.get("sources", {}).items()):
            where = f"source = {_quote([name])}"
            sources[name] = dict(info, documents=documents.count_rows(where),
                                 passages=self.passages.count_rows(where))
        disk = sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())
        return {"path": str(self.path), "embedding_model": self.meta.get("embedding_model"),
                "documents": documents.count_rows(), "passages": self.passages.count_rows(),
                "disk_bytes": disk, "updated": self.meta.get("updated"), "sources": sources,
                "vector_index": self.has_vector_index()}

    def has_vector_index(self) -> bool:
        return any(getattr(ix, "columns", None) == ["vector"] for ix in self.passages.list_indices())

    # -- search structures -------------------------------------------------------------
    def finish(self) -> None:
        """Bring the full-text (and, once large, the vector) index up to date and compact.

        optimize() folds new rows into the existing indices and merges the small fragments
        that each batch leaves; old versions are cleaned up so the folder does not grow.
        """
        from datetime import timedelta

        from lancedb.index import FTS

        table = self.passages
        rows = table.count_rows()
        indices = table.list_indices()
        if not any(getattr(ix, "columns", None) == ["search_text"] for ix in indices):
            table.create_index("search_text", config=FTS(with_position=False), replace=True)
        # optimize() adds new rows to the existing partitions; once the table has grown well past
        # the size the partitions were trained for, they are trained again.
        built_for = int(self.meta.get("vector_index_rows", 0))
        if rows >= VECTOR_INDEX_MIN_ROWS and (not self.has_vector_index() or rows >= REBUILD_GROWTH * built_for):
            build_vector_index(table, rows, int(self.meta["dim"]))
            self.meta["vector_index_rows"] = rows
        keep = timedelta(minutes=CLEANUP_AFTER_MINUTES)
        table.optimize(cleanup_older_than=keep)
        self.documents.optimize(cleanup_older_than=keep)
        self.meta["updated"] = time.time()
        self.save_meta()


ROWS_PER_PARTITION = 4096


def build_vector_index(table, rows: int, dim: int) -> None:
    """IVF-PQ over cosine distance; queries refine PQ candidates with exact distances
    (see retriever), which brings recall@10 back to near exact search.

    ~4096 rows per partition rather than the usual sqrt(rows): k-means over sqrt(10^6) = 1000
    centroids is what makes a build of a million passages slow on a laptop, while a query that
    visits 128 partitions of 4096 PQ codes stays in milliseconds (benchmarks/bench_query.py)."""
    from lancedb.index import IvfPq

    partitions = max(16, rows // ROWS_PER_PARTITION)
    table.create_index("vector", config=IvfPq(distance_type="cosine", num_partitions=partitions,
                                              num_sub_vectors=max(1, dim // 8)))
