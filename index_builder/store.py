"""The on-disk index: a LanceDB folder with a passages table, a documents table and meta;
`IndexStore` opens or creates it, holds its write lock and turns storage failures into one line.

Its other jobs live in one module each, mixed into IndexStore: the tables and metadata file
(store_tables), document and passage rows (store_rows), the sources' lifecycle (store_sources),
upkeep - orphans, search indices, compaction (store_upkeep) - passages waiting for their
vectors (store_vectors) and status (store_status).

Crash safety: a run writes each document's passages as text (no vector yet) before its
documents row, then gives the waiting passages their vectors (store_vectors). A run starts by
deleting passages whose document has no row (left by an interrupted run) and ends by embedding
every passage still waiting, so a killed build resumes both without duplicates or losses. A source is recorded as incomplete before its
first write and complete at the end of its run, so an interrupted one is still listed and
removable. One writer at a time (index_builder.lock); readers need no lock.

Failures of the storage underneath (a damaged table, a full disk) reach the user as one line
saying what is wrong and what to do (see `errors()`), never as a raw Lance error.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
import weakref
from pathlib import Path

from models.errors import IndexDamaged, IndexPathError, IndexRepairable, IndexUnusable, NoIndex
from models.static_embedder import backend_hint

from . import lock
from .store_errors import guarded, translate
from .store_rows import DocumentRows
from .store_sources import SourceLifecycle
from .store_status import StatusReport
from .store_tables import (DOCUMENTS, DOCUMENTS_SCHEMA, META_FILE, PASSAGES, DocumentRecord,
                           legacy_model_id, passages_schema, read_meta)
from .store_vectors import PendingVectors
from .store_upkeep import (CLEANUP_AFTER_MINUTES, MAX_PARTITIONS, REBUILD_GROWTH, ROWS_PER_PARTITION,
                           VECTOR_INDEX_MIN_ROWS, IndexUpkeep, build_vector_index)

# Re-exported: importers of index_builder.store keep finding these here.
__all__ = ["IndexStore", "DocumentRecord", "DOCUMENTS", "DOCUMENTS_SCHEMA", "META_FILE", "PASSAGES",
           "legacy_model_id", "passages_schema", "CLEANUP_AFTER_MINUTES", "REBUILD_GROWTH",
           "MAX_PARTITIONS", "ROWS_PER_PARTITION", "VECTOR_INDEX_MIN_ROWS", "build_vector_index"]

# LanceDB's Rust side logs warnings to stderr (e.g. about a damaged full-text index) around the
# one-line errors this module gives; errors reach the user through those instead.
os.environ.setdefault("LANCEDB_LOG", "error")


class IndexStore(DocumentRows, SourceLifecycle, IndexUpkeep, PendingVectors, StatusReport):
    def __init__(self, path: Path, db, meta: dict):
        self.path = path
        self.db = db
        self.meta = meta
        self._lock_release: weakref.finalize | None = None
        self._running: set[str] = set()  # sources begun by this store and not yet finished
        self._model_id_upgrade = ""

    def finish(self) -> None:
        """IndexUpkeep's end of a run, after rebuilding a missing or unreadable search index
        (health.py): an `add` with nothing new repairs it too."""
        from .health import rebuild_search_indices

        self.hold_write_lock()
        with self.errors():
            rebuild_search_indices(self)
        super().finish()

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path) -> "IndexStore":
        """Open an existing index for reading; a clear error when there is none or it is damaged."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise IndexPathError(lock.not_a_folder(path))
        if not (path / META_FILE).is_file():
            if (path / f"{PASSAGES}.lance").is_dir() and (path / f"{DOCUMENTS}.lance").is_dir():
                raise IndexRepairable(path, f"its metadata file {META_FILE} is missing")
            raise NoIndex(f"no index at {path}; build one with `assistant index add FOLDER`")
        meta = read_meta(path)
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
    def open_or_create(cls, path: Path, embedding_model: str, dim: int, backend: str | None = None) -> "IndexStore":
        """`backend` (torch, onnx, onnx-int8, model2vec) is recorded in a new index: what it was built with."""
        path = Path(path)
        if not (path / META_FILE).is_file():
            # Under the write lock: two first runs at once must not both create the tables.
            with lock.write_lock(path):
                if not (path / META_FILE).is_file():
                    cls._create(path, embedding_model, dim, backend)
        store = cls.open(path)
        store.check_embedding_model(embedding_model)
        return store

    @classmethod
    def _create(cls, path: Path, embedding_model: str, dim: int, backend: str | None = None) -> None:
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
            if backend:
                store.meta["embedder_backend"] = backend
            store.save_meta()

    def check_embedding_model(self, embedding_model: str) -> None:
        recorded = self.meta.get("embedding_model")
        if recorded and recorded != embedding_model:
            if recorded == legacy_model_id(embedding_model):
                self.meta["embedding_model"] = embedding_model  # recorded on this store's next write
                self._model_id_upgrade = embedding_model
                return
            raise IndexUnusable(
                f"index {self.path} was built with embedding model {recorded}, not {embedding_model}"
                f"{backend_hint(recorded, embedding_model)}; use the same model or build a new index with --index"
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
            self.meta = read_meta(self.path)
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

    @guarded
    def save_meta(self) -> None:
        self.hold_write_lock()  # the caller's changes are what is written
        tmp = self.path / (META_FILE + ".tmp")
        tmp.write_text(json.dumps(self.meta, indent=1), encoding="utf-8")
        os.replace(tmp, self.path / META_FILE)

    @property
    @guarded
    def passages(self):
        return self.db.open_table(PASSAGES)

    @property
    @guarded
    def documents(self):
        return self.db.open_table(DOCUMENTS)
