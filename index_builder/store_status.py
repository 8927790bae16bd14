"""What `assistant index status` shows about an index (a mixin of IndexStore): its sources with
their counts, totals, size on disk, last update and whether it has a vector index."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

from .store_errors import guarded
from .store_tables import quote


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
    def status(self) -> dict:
        """What `assistant index status` shows. A source whose run has not ended (still
        running, or interrupted) carries `incomplete: True`."""
        from .health import problems, searchable_filter

        documents, passages = self.documents, self.passages
        searchable = searchable_filter(self)  # passages of an unfinished document are not counted
        sources = {}
        for name, info in sorted(self.meta.get("sources", {}).items()):
            where = f"source = {quote([name])}"
            sources[name] = dict(info if isinstance(info, dict) else {}, documents=documents.count_rows(where),
                                 passages=passages.count_rows(f"{where} AND {searchable}" if searchable else where))
        disk = folder_size(self.path)
        return {"path": str(self.path), "embedding_model": self.meta.get("embedding_model"),
                "documents": documents.count_rows(), "passages": passages.count_rows(searchable),
                "disk_bytes": disk, "updated": self.meta.get("updated"), "sources": sources,
                "vector_index": self.has_vector_index(), "problems": problems(self)}
