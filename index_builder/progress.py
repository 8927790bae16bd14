"""What an index run reports as it goes (Progress, to a ProgressCallback) and how it is asked
to stop (a StopCheck): declared once here, for the indexers, the service and the front ends.

A run goes through named phases: reading (files read, extracted and written as full text:
searchable from then on), loading (the embedder's passage model), embedding (vectors for the
passages that wait for one). Each phase keeps its own clock, so a rate and a time left are
taken from the phase they describe, and the last line says where the time went.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from models.interrupt import StopCheck

__all__ = ["Progress", "ProgressCallback", "StopCheck", "READING", "LOADING", "EMBEDDING", "FINISHING",
           "clock_text"]

READING, LOADING, EMBEDDING, FINISHING = "reading", "loading", "embedding", "finishing"
PHASE_WORDS = {READING: "reading files", LOADING: "loading the embedder", EMBEDDING: "embedding",
               FINISHING: "updating the search indexes"}


def clock_text(seconds: float) -> str:
    """65 -> "1:05", 3725 -> "1:02:05"."""
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@dataclass
class Progress:
    """What a progress bar needs; `total_files` is None while still unknown.

    Sources of unknown length (a Wikipedia dump) report `bytes_done` / `total_bytes` instead.
    A folder's reading is measured in work: `total_work` is the bytes of the files still to
    read (an unchanged or skipped file leaves it as it is found), `work_done` the bytes of the
    files whose passages are written. `passages_done` counts passages written as full text
    (searchable), `passages_embedded` those given their vector out of `embed_total` waiting.
    """

    files_done: int = 0  # files (or articles) looked at, whether written, unchanged or skipped
    total_files: int | None = None
    passages_done: int = 0
    started: float = field(default_factory=time.monotonic)
    current: str = ""
    bytes_done: int = 0
    total_bytes: int | None = None
    total_work: int | None = None
    work_done: int = 0
    passages_embedded: int = 0
    embed_total: int = 0
    phase: str = READING
    phase_started: float | None = None  # None: when the run started
    phase_seconds: dict = field(default_factory=dict)  # phase -> seconds, of the phases ended
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def __post_init__(self) -> None:
        if self.phase_started is None:
            self.phase_started = self.started

    def begin(self, phase: str) -> None:
        """Enter `phase`: the one before it is timed and ended."""
        now = self.clock()
        self.phase_seconds[self.phase] = self.phase_seconds.get(self.phase, 0.0) + now - self.phase_started
        self.phase, self.phase_started = phase, now

    @property
    def elapsed(self) -> float:
        return max(1e-9, self.clock() - self.started)

    @property
    def phase_elapsed(self) -> float:
        return max(1e-9, self.clock() - self.phase_started)

    def seconds_in(self, phase: str) -> float:
        """Time spent in `phase` so far (the running one included)."""
        running = self.clock() - self.phase_started if phase == self.phase else 0.0
        return self.phase_seconds.get(phase, 0.0) + running

    @property
    def passages_per_second(self) -> float:
        """The running phase's rate: passages written while reading, vectors while embedding."""
        if self.phase == EMBEDDING:
            return self.passages_embedded / self.phase_elapsed
        return self.passages_done / max(1e-9, self.seconds_in(READING))

    @property
    def files_per_second(self) -> float:
        return self.files_done / self.elapsed

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left in the running phase at that phase's own rate so far; None while it has
        done nothing yet (no honest guess)."""
        if self.phase == EMBEDDING:
            if not self.passages_embedded:
                return None
            left = max(0, self.embed_total - self.passages_embedded)
            return left * self.phase_elapsed / self.passages_embedded
        if self.phase != READING:
            return None
        reading = max(1e-9, self.seconds_in(READING))
        if self.total_work is not None:
            if not self.work_done:
                return None
            return max(0, self.total_work - self.work_done) * reading / self.work_done
        if self.total_bytes and self.bytes_done:
            return max(0, self.total_bytes - self.bytes_done) * reading / self.bytes_done
        if not self.total_files or not self.files_done:
            return None
        return max(0, self.total_files - self.files_done) * reading / self.files_done

    def report(self, on_progress: ProgressCallback | None, every: float = 0.2) -> None:
        """Call on_progress at most every `every` seconds (for loops that report often)."""
        now = self.clock()
        if on_progress and now - self._last_report >= every:
            self._last_report = now
            on_progress(self)

    def summary(self, unit: str = "files") -> str:
        """Where the time went: "20 files, 700 passages in 1:05: reading 0:12, loading 0:05, embedding 0:48"."""
        phases = [(phase, self.seconds_in(phase)) for phase in (READING, LOADING, EMBEDDING, FINISHING)]
        parts = ", ".join(f"{phase} {clock_text(seconds)}" for phase, seconds in phases if seconds >= 0.5)
        head = f"{self.files_done} {unit}, {self.passages_done} passages"
        if self.passages_embedded:
            head += f" ({self.passages_embedded} embedded)"
        return f"{head} in {clock_text(self.elapsed)}" + (f": {parts}" if parts else "")

    _last_report: float = field(default=float("-inf"), repr=False)


ProgressCallback = Callable[[Progress], None]
