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
    phase: str = "reading"  # reading (text first), loading (the embedder), embedding, finishing
    passages_embedded: int = 0
    embed_total: int = 0

    @classmethod
    def of(cls, progress) -> "ProgressView":
        return cls(progress.files_done, progress.total_files, progress.passages_done,
                   progress.passages_per_second, progress.eta_seconds, progress.current,
                   progress.bytes_done, progress.total_bytes, progress.phase, progress.passages_embedded,
                   progress.embed_total)

    @property
    def total(self) -> int | None:
        """The bar's length: bytes for dumps and passage files, files for folders; passages while
        embedding."""
        if self.phase == "embedding":
            return self.embed_total or None
        return self.total_bytes or self.total_files or None

    @property
    def done(self) -> int:
        if self.phase == "embedding":
            return self.passages_embedded
        return self.bytes_done if self.total_bytes else self.files_done

    def line(self) -> str:
        if self.phase in ("loading", "embedding", "finishing"):
            return self._after_reading()
        if self.total_bytes:
            read = f"{self.files_done} documents · {human_size(self.bytes_done)} of {human_size(self.total_bytes)} read"
        else:
            read = f"{self.files_done}/{self.total_files} files" if self.total_files is not None \
                else f"{self.files_done} files"
        parts = [read, f"{self.passages_done} passages searchable"]
        if self.passages_done:  # before the first batch the rate (and so the ETA) means nothing
            parts.append(f"{self.rate:.0f}/s")
            if self.eta is not None:
                parts.append(f"ETA {self.eta:.0f}s")
        if self.total and self.done >= self.total:
            parts.append("writing the last batch…")
        elif self.current:
            parts.append(self.current)
        return " · ".join(parts)

    def _after_reading(self) -> str:
        """The phases after the text is written: every passage is searchable by full text."""
        if self.phase == "loading":
            return f"{self.passages_done} passages searchable by full text · loading the embedder…"
        if self.phase == "finishing":
            return "updating the search indexes…"
        parts = [f"embedding {self.passages_embedded}/{self.embed_total} passages"]
        if self.passages_embedded:
            parts.append(f"{self.rate:.0f}/s")
            if self.eta is not None:
                parts.append(f"ETA {self.eta:.0f}s")
        return " · ".join(parts)
