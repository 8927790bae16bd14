"""Keeping an index in shape (a mixin of IndexStore): orphan passages deleted at the start of a
run, and at its end the full-text and vector indices brought up to date and the tables compacted.

A killed build leaves only passages without a documents row; deleting them when the next run
starts lets it resume without duplicates or losses."""
from __future__ import annotations

import time

from .store_errors import guarded
from .store_tables import column

CLEANUP_AFTER_MINUTES = 5  # old table versions kept this long for readers still on them
VECTOR_INDEX_MIN_ROWS = 50_000  # below this, exact vector search is fast enough and exact
REBUILD_GROWTH = 4  # retrain the vector index once the table is this many times its trained size
ROWS_PER_PARTITION = 4096


class IndexUpkeep:
    """Needs from its IndexStore: `meta`, `documents`, `passages`, `delete_passages`,
    `_complete_running_sources`, `save_meta`, `hold_write_lock`, `errors`."""

    @guarded
    def remove_orphan_passages(self) -> int:
        """Delete passages whose document row is missing (an interrupted write)."""
        self.hold_write_lock(reload_meta=True)  # the start of a run
        passage_docs = set(column(self.passages, "doc_id"))
        known = set(column(self.documents, "doc_id"))
        orphans = passage_docs - known
        self.delete_passages(orphans)
        return len(orphans)

    @guarded
    def has_vector_index(self) -> bool:
        return any(getattr(ix, "columns", None) == ["vector"] for ix in self.passages.list_indices())

    @guarded
    def finish(self) -> None:
        """The end of a run: its sources are complete; bring the full-text (and, once large, the
        vector) index up to date and compact.

        optimize() folds new rows into the existing indices and merges the small fragments
        that each batch leaves; old versions are cleaned up so the folder does not grow.
        """
        from datetime import timedelta

        from lancedb.index import FTS

        self.hold_write_lock()
        self._complete_running_sources()

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
