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
# Rows per IVF partition of the HNSW index. Each partition is one HNSW graph, built in parallel
# with the others, and a query walks every graph (the retriever probes MAX_PARTITIONS): few large
# graphs are fastest to query (10^6 rows: 4) while still giving the build parallel work. Past
# MAX_PARTITIONS * ROWS_PER_PARTITION rows the graphs grow instead: a walk costs ~log(rows).
ROWS_PER_PARTITION = 250_000
MAX_PARTITIONS = 8
HNSW_LINKS = 16  # neighbours per node (m): recall at a given ef against graph size and build time
HNSW_BUILD_EF = 150  # candidates kept while linking a node (ef_construction)


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
        return self.vector_index_type() is not None

    @guarded
    def vector_index_type(self) -> str | None:
        """The kind of the vector index ("IvfHnswSq"; "IvfPq" on indices built before), None: none."""
        return next((ix.index_type for ix in self.passages.list_indices()
                     if getattr(ix, "columns", None) == ["vector"]), None)

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
            build_vector_index(table, rows)
            self.meta["vector_index_rows"] = rows
        keep = timedelta(minutes=CLEANUP_AFTER_MINUTES)
        table.optimize(cleanup_older_than=keep)
        self.documents.optimize(cleanup_older_than=keep)
        self.meta["updated"] = time.time()
        self.save_meta()


def build_vector_index(table, rows: int) -> None:
    """HNSW graphs over int8 scalar-quantised vectors (cosine) inside a few IVF partitions; queries
    re-rank the candidates by exact distance (see retriever's VECTOR_SEARCH).

    Replaced IVF-PQ (4096 rows per partition, queries scanning the PQ codes of half of them):
    on 10^6 rows HNSW-SQ's graph walk touches far fewer vectors than that scan, for the same
    recall (benchmarks/bench_query.py)."""
    from lancedb.index import IvfHnswSq

    partitions = min(MAX_PARTITIONS, max(1, -(-rows // ROWS_PER_PARTITION)))  # ceil: none over the size
    table.create_index("vector", replace=True, config=IvfHnswSq(
        distance_type="cosine", num_partitions=partitions, m=HNSW_LINKS, ef_construction=HNSW_BUILD_EF))


def update_full_text_index(table) -> None:
    """Fold the rows written since the full-text index was built into it (created when missing)."""
    from lancedb.index import FTS

    if not any(getattr(ix, "columns", None) == ["search_text"] for ix in table.list_indices()):
        table.create_index("search_text", config=FTS(with_position=False), replace=True)
        return
    try:  # pylance (the cluster extra) folds new rows into the index alone
        dataset = table.to_lance()
    except ImportError:  # without it, optimize() does that and compacts the table (no cleanup)
        table.optimize()
        return
    dataset.optimize.optimize_indices(index_names=[ix.name for ix in table.list_indices()
                                                   if getattr(ix, "columns", None) == ["search_text"]])
