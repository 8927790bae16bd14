"""What an index run reports as it goes (Progress, to a ProgressCallback) and how it is asked
to stop (a StopCheck): declared once here, for the indexers, the service and the front ends."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from models.interrupt import StopCheck

__all__ = ["Progress", "ProgressCallback", "StopCheck"]


@dataclass
class Progress:
    """What a progress bar needs; `total_files` is None while still unknown.

    Sources of unknown length (a Wikipedia dump) report `bytes_done` / `total_bytes` instead,
    and the ETA is taken from those. A folder's ETA is taken from its work: `total_work` is the
    bytes of the files still to embed (an unchanged or skipped file leaves it as it is found),
    `work_done` the bytes of the files whose passages are committed. Files are read ahead of the
    embedder, and unchanged ones cost nothing, so counting files looked at would promise too soon.
    """

    files_done: int = 0  # files (or articles) looked at, whether embedded, unchanged or skipped
    total_files: int | None = None
    passages_done: int = 0
    started: float = field(default_factory=time.monotonic)
    current: str = ""
    bytes_done: int = 0
    total_bytes: int | None = None
    total_work: int | None = None
    work_done: int = 0

    @property
    def elapsed(self) -> float:
        return max(1e-9, time.monotonic() - self.started)

    @property
    def passages_per_second(self) -> float:
        return self.passages_done / self.elapsed

    @property
    def files_per_second(self) -> float:
        return self.files_done / self.elapsed

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left at the rate so far; None while nothing is committed (no honest guess)."""
        if self.total_work is not None:
            if not self.work_done:
                return None
            return max(0, self.total_work - self.work_done) * self.elapsed / self.work_done
        if self.total_bytes and self.bytes_done:
            return (self.total_bytes - self.bytes_done) * self.elapsed / self.bytes_done
        if not self.total_files or not self.files_done:
            return None
        return (self.total_files - self.files_done) / self.files_per_second

    def report(self, on_progress: ProgressCallback | None, every: float = 0.2) -> None:
        """Call on_progress at most every `every` seconds (for loops that do no embedding)."""
        now = time.monotonic()
        if on_progress and now - self._last_report >= every:
            self._last_report = now
            on_progress(self)

    _last_report: float = field(default=0.0, repr=False)


ProgressCallback = Callable[[Progress], None]
