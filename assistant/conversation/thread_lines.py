"""The lines of a thread file (thread_file.py), streamed: where each lies, its bytes unless it is
too long to hold, and the turn record it holds, or None when it is damage."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterator

CHUNK = 1 << 20
MAX_TURN_BYTES = 64 << 20  # a line (or an old-style turn) past this is damage, never held whole


@dataclass(frozen=True)
class Line:
    """One line of a thread file: where it lies, its bytes (None past MAX_TURN_BYTES: not held)
    and whether its newline was written."""

    start: int
    end: int
    data: bytes | None
    ended: bool

    @property
    def blank(self) -> bool:
        return self.data is not None and not self.data.strip()


def scan(fh) -> Iterator[Line]:
    """Every line of an open file, streamed; a line past MAX_TURN_BYTES is walked, not held."""
    buf, offset, pos, skipping = b"", 0, 0, None  # offset: the file position of buf[0]
    while chunk := fh.read(CHUNK):
        buf, offset, pos = buf[pos:] + chunk, offset + pos, 0
        while (newline := buf.find(b"\n", pos)) >= 0:
            if skipping is not None:
                yield Line(skipping, offset + newline + 1, None, True)
                skipping = None
            else:
                long = newline - pos > MAX_TURN_BYTES
                yield Line(offset + pos, offset + newline + 1, None if long else buf[pos:newline], True)
            pos = newline + 1
        if len(buf) - pos > MAX_TURN_BYTES:  # a line too long to hold: skipped to its end
            skipping = offset + pos if skipping is None else skipping
            offset, buf, pos = offset + len(buf), b"", 0
    if skipping is not None:
        yield Line(skipping, offset + len(buf), None, False)
    elif buf[pos:]:
        yield Line(offset + pos, offset + len(buf), buf[pos:], False)


def parse(data: bytes | None) -> dict | None:
    """The record a line holds; None when it is damage (not JSON, not an object, too long)."""
    if data is None:
        return None
    try:
        record = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def copy_range(source, start: int, end: int, out) -> None:
    """Bytes start..end of an open file written to `out`, a chunk at a time."""
    source.seek(start)
    while start < end and (chunk := source.read(min(CHUNK, end - start))):
        out.write(chunk)
        start += len(chunk)
