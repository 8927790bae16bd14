"""The rich progress bars: index commands feed theirs with index_builder Progress reports;
`models pull` feeds its download bar with bytes."""
from __future__ import annotations

from ..sizes import human_size


def progress_fields(progress, unit: str) -> dict:
    """What the bar shows for one index_builder Progress report: dumps count bytes read
    (shown as sizes, e.g. "3.0 MB/12.0 MB"), folders count files."""
    if progress.total_bytes:
        completed, total = progress.bytes_done, progress.total_bytes
        done = f"{human_size(completed)}/{human_size(total)}"
    else:
        completed, total = progress.files_done, progress.total_files
        done = f"{completed}/{total}" if total else f"{completed}"
    rate = (f"{progress.files_done} {unit}, {progress.passages_done} passages "
            f"({progress.passages_per_second:.0f} passages/s)")
    return {"completed": completed, "total": total, "done": done, "rate": rate,
            "left": time_left(progress.eta_seconds if progress.passages_done else None)}


def time_left(seconds: float | None) -> str:
    """The ETA in words a person reads at a glance; "" until there is a rate to go by (the first
    committed batch), rather than a guess."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "under a minute left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"


def progress_bar(unit: str = "files"):
    """A rich progress bar fed by index_builder Progress reports."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    # The time left is the indexer's (committed work), not rich's (files looked at, read ahead).
    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[done]}"),
                   TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("{task.fields[left]}"),
                   transient=False)
    task = bar.add_task(f"indexing {unit}", total=None, done="", rate="", left="")

    def update(progress):
        bar.update(task, **progress_fields(progress, unit))

    return bar, update


def download_bar():
    """A rich bar for one file's download: bytes done/total, speed and time left; then its hash check."""
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                               TransferSpeedColumn)

    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(binary_units=True),
                    TransferSpeedColumn(), TimeRemainingColumn(), transient=False)
