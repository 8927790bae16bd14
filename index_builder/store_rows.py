"""Writing and reading the rows of documents and their passages (a mixin of IndexStore).

A document's passages (as text, their vectors come later: store_vectors) are written before its
documents row (the commit point of a batch), and removing one deletes its row first, so a crash
in between leaves only orphan passages, which the next run deletes (store_upkeep)."""
from __future__ import annotations

import time
from typing import Iterable

import pyarrow as pa

from .store_errors import guarded
from .store_tables import DocumentRecord, quote


class DocumentRows:
    """Needs from its IndexStore: `documents`, `passages`, `hold_write_lock`, `errors`."""

    @guarded
    def documents_of(self, source: str) -> dict[str, DocumentRecord]:
        table = self.documents.to_arrow()
        rows = table.filter(pa.compute.equal(table["source"], source)).to_pylist()
        return {
            r["path"]: DocumentRecord(**{k: r[k] for k in DocumentRecord.__dataclass_fields__})
            for r in rows
        }

    @guarded
    def delete_passages(self, doc_ids: Iterable[str]) -> None:
        self.hold_write_lock()
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            self.passages.delete(f"doc_id IN ({quote(ids[start:start + 500])})")

    @guarded
    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        self.hold_write_lock()
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            self.documents.delete(f"doc_id IN ({quote(ids[start:start + 500])})")

    @guarded
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

    @guarded
    def rename_doc_id(self, old: str, new: str) -> None:
        """Give the passages stored under doc id `old` the doc id `new` (a replacing document's
        staged passages take the id of the version they replace, once it is removed)."""
        self.hold_write_lock()
        self.passages.update(where=f"doc_id = {quote([old])}", values={"doc_id": new})

    @guarded
    def remove_documents(self, doc_ids: Iterable[str]) -> None:
        self.hold_write_lock()
        ids = list(doc_ids)
        self.delete_documents(ids)  # row first: a crash in between leaves orphans, cleaned later
        self.delete_passages(ids)

    @guarded
    def update_mtimes(self, mtimes: dict[str, float]) -> None:
        """Record new modification times of documents whose content did not change."""
        self.hold_write_lock()
        for doc_id, mtime in mtimes.items():
            self.documents.update(where=f"doc_id = {quote([doc_id])}", values={"mtime": float(mtime)})
