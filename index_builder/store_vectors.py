"""Passages that wait for their vector (a mixin of IndexStore): full text first, vectors after.

A run writes each document's passages with an empty (null) vector and its documents row in the
same batch: from then on the document is committed and its text searchable by full text (its
state "text"). The embedding phase then gives the waiting passages their vectors, a batch per
commit (state "embedded" once none of its passages waits). The state lives in the passages'
vector column itself, so indexes written before need no migration, and a killed run leaves
only passages that the next run embeds (or, without a documents row, orphans it deletes).

`meta["vectors_pending"]` says that a run may have left passages waiting: readers (status, the
retriever) count them only then, so a whole index costs them no scan of its vectors.
"""
from __future__ import annotations

import time
from typing import Iterator

import numpy as np
import pyarrow as pa

from .store_errors import guarded
from .store_tables import PASSAGES

WAITING = "vector IS NULL"
PENDING = "vectors_pending"
# Rows written (or rewritten with their vector) between two full-text index updates. Rows outside
# the index are still found, by a scan that costs each search ~0.1 ms a row on 2 loaded cores
# (5,000: ~0.5 s); an update costs ~0.3 ms a new row (lab/notes/issue-53.md).
FTS_REFRESH_ROWS = 5_000
KEY = ["doc_id", "id"]  # a passage's identity: ids of passage files are unique per file only


class PendingVectors:
    """Needs from its IndexStore: `meta`, `db`, `passages`, `save_meta`, `hold_write_lock`, `errors`."""

    def mark_pending(self) -> None:
        """Before a run writes passages without vectors: readers look for waiting ones from now on."""
        if not self.meta.get(PENDING):
            self.meta[PENDING] = True
            self.save_meta()

    @guarded
    def waiting_count(self, where: str | None = None) -> int:
        """Passages (of `where`, when given) that have no vector yet."""
        if not self.meta.get(PENDING):
            return 0
        return self.passages.count_rows(f"({where}) AND {WAITING}" if where else WAITING)

    @guarded
    def waiting_rows(self, batch_rows: int) -> Iterator[list[dict]]:
        """The passages waiting now, a batch of rows (key, path, title, section, text) at a time,
        read from the table's version of this moment while the run writes newer ones."""
        table = self.db.open_table(PASSAGES)
        table.checkout(table.version)  # pinned: its files stay until finish() cleans old versions up
        columns = KEY + ["path", "title", "section", "text"]
        reader = table.search().where(WAITING).select(columns).limit(None).to_batches(batch_rows)
        for batch in reader:
            if batch.num_rows:
                yield batch.to_pylist()

    @guarded
    def fill_vectors(self, rows: list[dict]) -> None:
        """Write the vectors of these passages (rows with their KEY and "vector"): one commit,
        only the vector column is set. A key given twice (a source that repeats a document)
        is written once."""
        self.hold_write_lock()
        unique = list({tuple(row[k] for k in KEY): row for row in reversed(rows)}.values())
        if not unique:
            return
        table = self.passages
        dim = table.schema.field("vector").type.list_size
        flat = np.asarray([row["vector"] for row in unique], dtype=np.float32).reshape(-1)
        data = pa.table({**{k: pa.array([row[k] for row in unique], pa.string()) for k in KEY},
                         "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat), dim)})
        table.merge_insert(KEY).when_matched_update_all().execute(data)
        self.written_rows(len(unique))  # a row given its vector is rewritten, outside the index

    @guarded
    def vectors_done(self) -> None:
        """The embedding phase left nothing waiting: readers stop looking."""
        if self.meta.get(PENDING) and not self.passages.count_rows(WAITING):
            self.meta.pop(PENDING, None)
            self.save_meta()

    def written_rows(self, count: int) -> None:
        """`count` rows were written outside the full-text index: it is updated every
        FTS_REFRESH_ROWS, so that a search scans at most that many rows besides the index."""
        self._outside_fts = getattr(self, "_outside_fts", 0) + count
        if self._outside_fts >= FTS_REFRESH_ROWS:
            self.refresh_full_text()

    @guarded
    def refresh_full_text(self) -> float:
        """Bring the full-text index up to date with the rows written since it was (rows outside
        it are still found, by a scan that grows with them); seconds it took."""
        started = time.perf_counter()
        self.hold_write_lock()
        from .store_upkeep import update_full_text_index

        update_full_text_index(self.passages)
        self._outside_fts = 0
        self.full_text_seconds = getattr(self, "full_text_seconds", 0.0) + time.perf_counter() - started
        return time.perf_counter() - started
