"""What the index screen shows of index_builder's Progress: the bar's length and position and
one status line, for folders (counted in files) and for dumps and passage files (in bytes)."""
from __future__ import annotations

from dataclasses import dataclass

from assistant.sizes import human_size


@dataclass
class ProgressView:
    """A copy of index_builder's Progress, taken whenever the screen redraws the bar."""

    files_done: int
    total_files: int | None
    passages_done: int
    rate: float
    eta: float | None
    current: str
    bytes_done: int = 0
    total_bytes: int | None = None

    @classmethod
    def of(cls, progress) -> "ProgressView":
        return cls(progress.files_done, progress.total_files, progress.passages_done,
                   progress.passages_per_second, progress.eta_seconds, progress.current,
                   progress.bytes_done, progress.total_bytes)

    @property
    def total(self) -> int | None:
        """The bar's length: bytes for dumps and passage files, files for folders."""
        return self.total_bytes or self.total_files or None

    @property
    def done(self) -> int:
        return self.bytes_done if self.total_bytes else self.files_done

    def line(self) -> str:
        if self.total_bytes:
            read = f"{self.files_done} documents · {human_size(self.bytes_done)} of {human_size(self.total_bytes)} read"
        else:
            read = f"{self.files_done}/{self.total_files} files" if self.total_files is not None \
                else f"{self.files_done} files"
        parts = [read, f"{self.passages_done} passages embedded"]
        if self.passages_done:  # before the first batch the rate (and so the ETA) means nothing
            parts.append(f"{self.rate:.0f}/s")
            if self.eta is not None:
                parts.append(f"ETA {self.eta:.0f}s")
        if self.total and self.done >= self.total:
            parts.append("embedding the last batch…")
        elif self.current:
            parts.append(self.current)
        return " · ".join(parts)
