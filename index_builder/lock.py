"""One writer at a time per index: an exclusive lock on a file in the index folder.

Two builds into one index at once would each see the other's passages as orphans, or both
write the same documents, and store every passage twice. A writer takes the lock before its
first write and keeps it until it is done; a second writer waits a few seconds, then says who
holds it. The lock is an `flock` on an open file, so the system drops it when the holder dies
(kill -9 included): a stale lock file never blocks. The file holds the holder's pid, command
and start time, only for the message. Readers take no lock.

Within one process the lock is re-entrant (a count per index folder): the CLI takes it before
loading the embedder, the store again on its first write.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

from models.errors import DiskFull, IndexBusy, IndexPathError

try:
    import fcntl
except ImportError:  # Windows: no flock; writers are then not serialised
    fcntl = None

LOCK_FILE = "assistant-index.lock"
WAIT_SECONDS = 5.0  # how long a second writer waits before giving up
_POLL_SECONDS = 0.1


def not_a_folder(index_path: Path) -> str:
    return (f"the index at {index_path} is a file, not an index folder; give --index a folder "
            "(a new one is created)")


class _Held:
    def __init__(self, handle):
        self.handle = handle
        self.count = 0


_held: dict[str, _Held] = {}
_guard = threading.Lock()


def _key(index_path: Path) -> str:
    return os.path.realpath(index_path)


def command_line() -> str:
    """This process's command as a user typed it: `assistant index add ~/x`."""
    argv = list(sys.argv) or ["python"]
    head = os.path.basename(argv[0])
    if head in ("__main__.py", "assistant"):
        head = "assistant"
    home = os.path.expanduser("~")
    words = [head] + ["~" + a[len(home):] if home != os.sep and (a == home or a.startswith(home + os.sep)) else a
                      for a in argv[1:]]
    text = " ".join(words)
    return text.encode("utf-8", "replace").decode("utf-8")[:200]


def _holder_text(path: Path) -> str:
    """'pid 1234 (assistant index add ~/x) since 10:02' from the lock file, as far as it says."""
    try:
        holder = json.loads(path.read_text(encoding="utf-8"))
        since = datetime.fromtimestamp(float(holder["since"])).strftime("%H:%M")
        return f"pid {int(holder['pid'])} ({holder['command']}) since {since}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"  # it took the lock a moment ago and has not written its name yet


def acquire(index_path: Path, wait: float | None = None) -> None:
    """Take the write lock of the index at `index_path` (creating the folder), waiting up to
    `wait` seconds (default WAIT_SECONDS); IndexBusy when another process keeps it."""
    index_path = Path(index_path)
    key = _key(index_path)
    with _guard:
        held = _held.get(key)
        if held is None:
            held = _Held(_lock_file(index_path, WAIT_SECONDS if wait is None else wait))
            _held[key] = held
        held.count += 1


def release(index_path: Path) -> None:
    """Give back one acquire(); the lock is dropped with the last one."""
    key = _key(index_path)
    with _guard:
        held = _held.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count <= 0:
            del _held[key]
            if held.handle is not None:
                held.handle.close()  # closing the file drops the flock


def held(index_path: Path) -> bool:
    """Whether this process holds the write lock of the index."""
    with _guard:
        return _key(index_path) in _held


@contextlib.contextmanager
def write_lock(index_path: Path, wait: float | None = None):
    acquire(index_path, wait)
    try:
        yield
    finally:
        release(index_path)


def _lock_file(index_path: Path, wait: float):
    if index_path.exists() and not index_path.is_dir():
        raise IndexPathError(not_a_folder(index_path))
    path = index_path / LOCK_FILE
    try:
        index_path.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="utf-8")
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(index_path) from None
        raise IndexPathError(f"cannot write the index at {index_path}: {exc.strerror or exc}") from None
    if fcntl is None:
        return handle
    deadline = time.monotonic() + max(0.0, wait)
    while True:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                    return handle  # a file system without locks: go on unserialised, as before
                handle.close()
                raise IndexPathError(f"cannot lock the index at {index_path}: {exc.strerror or exc}") from None
            if time.monotonic() >= deadline:
                handle.close()
                raise IndexBusy(f"the index at {index_path} is being written by {_holder_text(path)}; "
                                "wait for it or stop it") from None
            time.sleep(_POLL_SECONDS)
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "command": command_line(), "since": time.time()}))
        handle.flush()
    except OSError:
        pass  # the name is only for the message; the lock itself is held
    return handle
