"""LanceDB's failures turned into the index errors of models.errors, one line each: damaged
(what is wrong, and how to rebuild it) or the disk is full. LanceDB raises plain OSError /
RuntimeError / ValueError whose text holds Rust source paths; `translate` turns those into
IndexDamaged / DiskFull, `guarded` does so for a store method."""
from __future__ import annotations

import errno
import functools
import os
import re
from pathlib import Path

import pyarrow as pa

from models.errors import AssistantError, DiskFull, IndexDamaged, IndexRepairable

_RUST_LOCATION = re.compile(r",?\s*/\S+\.rs:\d+:\d+")


def _is_disk_full(exc: BaseException) -> bool:
    text = str(exc)
    return ((isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT))
            or "No space left on device" in text or "os error 28" in text or "Disk quota exceeded" in text)


def _damage(exc: BaseException, path: Path) -> str:
    """What is wrong, in a few words, from a Lance error: its first line without Rust source paths."""
    text = _RUST_LOCATION.sub("", (str(exc).splitlines() or [""])[0])
    root = os.path.abspath(path)
    for noise in ("lance error: ", root + "/", root.lstrip("/") + "/"):  # paths inside the index, relative
        text = text.replace(noise, "")
    table = re.search(r"Table '(\w+)' was not found", text)
    if table:
        return f"its {table.group(1)} table is missing"
    missing = re.search(r"Not found: (\S+)", text)
    if missing:
        return f"a file is missing: {missing.group(1).rstrip(',')}"
    text = re.sub(r"LanceError\(\w+\): |Generic \w+ error: |Wrapped error: ", "", text).strip()
    return f"unreadable data: {text[:200] or type(exc).__name__}"


def translate(exc: BaseException, path: Path) -> BaseException:
    """The one-line error for a storage failure under the index at `path`; `exc` itself when it
    is not one (an AssistantError, an interrupt, or a bug in our own code)."""
    if isinstance(exc, (AssistantError, KeyboardInterrupt)):
        return exc
    if _is_disk_full(exc):
        return DiskFull(path)
    if isinstance(exc, (OSError, RuntimeError, ValueError, pa.ArrowException)):
        damage = _damage(exc, path)
        if "a file is missing" in damage and "_indices/" in damage:  # a search index: rebuilt from the table
            return IndexRepairable(path, damage)
        return IndexDamaged(path, damage)
    return exc


def guarded(method):
    """Storage failures inside the store's `method` become one-line errors (its `errors()`)."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self.errors():
            return method(self, *args, **kwargs)
    return wrapper
