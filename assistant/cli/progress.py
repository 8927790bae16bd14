"""The rich progress bars: index commands feed theirs with index_builder Progress reports;
`models pull` feeds its download bar with bytes.

An index bar names the phase it is in (reading files, loading the embedder, embedding), gives
that phase's own rate and time left, and reads the clock each time it is drawn (rich redraws it
four times a second), not when a batch completes: the clock never stops while a batch runs, and
the time left counts down between reports. The command prints `LiveIndexLine.summary()` last.
"""
from __future__ import annotations

import time
from typing import Callable

from ..service import PHASE_WORDS, clock_text
from ..sizes import human_size

_EMBEDDING, _READING = "embedding", "reading"


def progress_fields(progress, unit: str) -> dict:
    """What the bar shows for one index_builder Progress report: its phase, how far it is (dumps
    count bytes read, shown as sizes, e.g. "3.0 MB/12.0 MB"; folders count files; embedding
    counts passages), the phase's rate and its time left."""
    phase = getattr(progress, "phase", _READING)
    if phase == _EMBEDDING:
        completed, total = progress.passages_embedded, progress.embed_total
        done = f"{completed}/{total} passages"
        rate = f"{progress.passages_per_second:.0f} passages/s"
    else:
        if progress.total_bytes:  # a dump: how much of it is read, then the pages found so far
            completed, total = progress.bytes_done, progress.total_bytes
            done = f"{human_size(completed)}/{human_size(total)}, {progress.files_done} {unit}"
        else:
            completed, total = progress.files_done, progress.total_files
            done = (f"{completed}/{total}" if total else f"{completed}") + f" {unit}"
        done += f", {progress.passages_done} passages"
        rate = f"{progress.passages_per_second:.0f} passages/s" if phase == _READING else ""
    busy = progress.passages_embedded if phase == _EMBEDDING else progress.passages_done
    return {"phase": PHASE_WORDS.get(phase, phase), "completed": completed, "total": total, "done": done,
            "rate": rate, "eta": progress.eta_seconds if busy else None,
            "left": time_left(progress.eta_seconds if busy else None)}


def time_left(seconds: float | None) -> str:
    """The ETA in words a person reads at a glance; "" until there is a rate to go by, rather
    than a guess."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "under a minute left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"


class LiveIndexLine:
    """The latest report, and the line drawn from it at any moment `now` (a monotonic clock)."""

    def __init__(self, unit: str, clock: Callable[[], float] = time.monotonic):
        self.unit, self.clock = unit, clock
        self.progress = None
        self.fields: dict = {}
        self.reported_at = 0.0

    def feed(self, progress) -> dict:
        self.progress = progress
        self.fields = progress_fields(progress, self.unit)
        self.reported_at = self.clock()
        return self.fields

    def text(self, now: float | None = None) -> str:
        """"embedding · 320/700 passages · 28 passages/s · 0:45 · about 1 min left"."""
        if self.progress is None:
            return ""
        now = self.clock() if now is None else now
        fields = self.fields
        parts = [fields["done"], fields["rate"], clock_text(now - self.progress.started)]
        finished = fields["total"] and fields["completed"] >= fields["total"]
        if fields["eta"] is not None and not finished:  # counts down from the last report until the next one
            parts.append(time_left(max(0.0, fields["eta"] - (now - self.reported_at))))
        return " · ".join(p for p in parts if p)

    def summary(self) -> str:
        """Where the time went (index_builder Progress.summary), or "" before any report."""
        return self.progress.summary(self.unit) if self.progress is not None else ""


def progress_bar(unit: str = "files"):
    """(rich bar, update): update(progress) feeds it index_builder Progress reports, and
    update.line is the LiveIndexLine (its summary() is the run's last line)."""
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn
    from rich.text import Text

    line = LiveIndexLine(unit)

    class LiveColumn(ProgressColumn):
        max_refresh = None  # drawn at every refresh: the clock moves even while a batch runs

        def render(self, task):
            return Text(line.text())

    bar = Progress(TextColumn("{task.description}"), BarColumn(bar_width=20), LiveColumn(), transient=False,
                   refresh_per_second=4)
    task = bar.add_task(f"indexing {unit}", total=None)

    def update(progress):
        fields = line.feed(progress)
        bar.update(task, description=fields["phase"], completed=fields["completed"], total=fields["total"] or None)

    update.line = line
    return bar, update


def download_bar():
    """A rich bar for one file's download: bytes done/total, speed and time left; then its hash check."""
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                               TransferSpeedColumn)

    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(binary_units=True),
                    TransferSpeedColumn(), TimeRemainingColumn(), transient=False)
