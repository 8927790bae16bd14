"""The lifecycle of an index's sources (a mixin of IndexStore): recorded as incomplete before a
run writes anything, complete when it ends (store_upkeep's finish), asked about, and removed
with everything indexed from them.

A source is recorded as incomplete before its first write, so an interrupted one is still
listed by status and removable."""
from __future__ import annotations

import time

from .names import safe_name
from .store_errors import guarded
from .store_tables import quote


class SourceLifecycle:
    """Needs from its IndexStore: `meta`, `_running`, `documents`, `passages`, `save_meta`,
    `hold_write_lock`, `finish`, `errors`."""

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

    def _complete_running_sources(self) -> None:
        """The sources this store began are complete (called by finish, at the end of a run)."""
        for source in self._running:
            info = self.meta.get("sources", {}).get(source)
            if isinstance(info, dict):
                for key in ("incomplete", "started", "resume"):
                    info.pop(key, None)
        self._running.clear()

    @guarded
    def has_source(self, source: str) -> bool:
        """Whether `source` is recorded, or has rows (from a run killed before sources were
        recorded at their start). Sources are recorded under safe names (names.safe_name)."""
        source = safe_name(source)
        return source in self.meta.get("sources", {}) or self.documents.count_rows(
            f"source = {quote([source])}") > 0

    @guarded
    def remove_source(self, source: str) -> int:
        """Forget a source and everything indexed from it; returns passages removed."""
        self.hold_write_lock(reload_meta=True)
        source = safe_name(source)  # the name it is recorded under
        where = f"source = {quote([source])}"
        removed = self.passages.count_rows(where)
        self.documents.delete(where)  # documents first, as in remove_documents
        self.passages.delete(where)
        self.meta.get("sources", {}).pop(source, None)
        self._running.discard(source)
        self.finish()
        return removed
