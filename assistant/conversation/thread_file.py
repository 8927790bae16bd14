"""A thread on disk, safe with several writers: `NAME.jsonl`, one turn a line, only ever appended
to, under an exclusive lock (`flock` on `.locks/NAME.lock`, dropped by the system when a holder
dies); readers take the shared lock. Two processes adding to one thread (`ask --thread` twice,
`chat` beside `ask`) each add their own line: no read-modify-write, so no turn is lost.

Bounded reads: a prompt (or the app) reads only the newest bytes (`read_bytes`) of the newest
parts; once the current file passes `rotate_bytes` it moves aside as `NAME.jsonl.1`, `.2`, ...
(older turns kept on disk, read whole only by an export). A thread written by an older version
as one JSON document (`NAME.json`) is still read, streamed turn by turn, and becomes `NAME.jsonl`
on its next append.

Damage costs only what is damaged: a line that is not a turn (not JSON, not an object, longer
than MAX_TURN_BYTES, a write cut short) is skipped by readers and moved by `set_aside`, under
the exclusive lock, to `NAME.jsonl.damaged` beside the thread (appended: never dropped); the
intact turns stay in order. A turn longer than TURN_CAP_BYTES is refused when written. An
old-style file that cannot be streamed, or one that cannot be read at all, raises
ThreadDamaged, for that thread alone.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
from collections import deque
from pathlib import Path
from typing import Callable, Iterator

from models.errors import ThreadDamaged

from .thread_lines import CHUNK, MAX_TURN_BYTES, copy_range, parse, scan

try:
    import fcntl
except ImportError:  # Windows: no flock; appends are still single O_APPEND writes
    fcntl = None

LOCKS = ".locks"
TURN_CAP_BYTES = 1 << 20  # a new turn past this is refused: it would not fit what opening a thread reads
DAMAGED = ".damaged"  # NAME.jsonl.damaged: the lines set aside, beside the thread
_TURNS_KEY = re.compile(r'"turns"\s*:\s*\[')


def jsonl(folder: Path, name: str) -> Path:
    return folder / f"{name}.jsonl"


def legacy(folder: Path, name: str) -> Path:
    return folder / f"{name}.json"


def set_aside_file(folder: Path, name: str) -> Path:
    """Where the thread's damaged lines are kept (never listed as a thread: not *.json(l))."""
    return folder / f"{name}.jsonl{DAMAGED}"


def parts(folder: Path, name: str) -> list[Path]:
    """The rotated parts, the oldest first (NAME.jsonl.1, .2, ...)."""
    found = []
    for path in folder.glob(f"{glob_escape(name)}.jsonl.*"):
        suffix = path.name.rsplit(".", 1)[1]
        if suffix.isdigit():
            found.append((int(suffix), path))
    return [path for _, path in sorted(found)]


def glob_escape(name: str) -> str:
    return re.sub(r"([\[\]*?])", r"[\1]", name)


def all_files(folder: Path, name: str) -> list[Path]:
    """Every file of the thread, the oldest turns first."""
    return [p for p in (legacy(folder, name), *parts(folder, name), jsonl(folder, name)) if p.is_file()]


@contextlib.contextmanager
def locked(folder: Path, name: str, exclusive: bool):
    """The thread's lock: exclusive to append or rewrite, shared to read. A reader in a folder it
    cannot write reads without it."""
    if fcntl is None:
        yield
        return
    try:
        (folder / LOCKS).mkdir(parents=True, exist_ok=True)
        handle = open(folder / LOCKS / f"{name}.lock", "a+")
    except OSError:
        if exclusive:
            raise
        yield
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        handle.close()  # drops the lock


def damaged(path: Path, why: str, name: str) -> ThreadDamaged:
    return ThreadDamaged(f"the thread file {path} is damaged ({why}); delete it with "
                         f"`assistant chat --delete {name}`")


# -- reading ---------------------------------------------------------------------------------------
def legacy_records(path: Path, name: str) -> Iterator[dict]:
    """The turns of an old-style NAME.json ({"name": ..., "turns": [...]}), one at a time: a
    huge file is streamed, never held whole."""
    decoder = json.JSONDecoder()
    try:
        with open(path, encoding="utf-8") as fh:
            buf, eof = "", False
            while not (match := _TURNS_KEY.search(buf)):
                if eof or len(buf) > MAX_TURN_BYTES:
                    raise damaged(path, "no list of turns", name)
                more = fh.read(CHUNK)
                buf, eof = buf + more, not more
            pos = match.end()
            while True:
                while pos < len(buf) and buf[pos] in " \t\r\n,":
                    pos += 1
                if pos < len(buf) and buf[pos] == "]":
                    return
                try:
                    record, end = decoder.raw_decode(buf, pos)
                except ValueError:
                    if eof or len(buf) - pos > MAX_TURN_BYTES:
                        raise damaged(path, "a turn cut short or not JSON", name) from None
                    more = fh.read(CHUNK)
                    buf, pos, eof = buf[pos:] + more, 0, not more
                    continue
                if not isinstance(record, dict):
                    raise damaged(path, "a turn that is not an object", name)
                yield record
                buf, pos = buf[end:], 0
    except UnicodeDecodeError:
        raise damaged(path, "not UTF-8", name) from None
    except OSError as exc:
        raise damaged(path, exc.strerror or type(exc).__name__, name) from None


def file_records(path: Path, name: str) -> Iterator[dict | None]:
    """Every turn of one file (jsonl or old-style json), streamed; None for each damaged line."""
    if path.suffix == ".json":
        yield from legacy_records(path, name)
        return
    try:
        with open(path, "rb") as fh:
            yield from (parse(line.data) for line in scan(fh) if not line.blank)
    except OSError as exc:
        raise damaged(path, exc.strerror or type(exc).__name__, name) from None


def tail_records(path: Path, name: str, budget: int) -> tuple[list[dict | None], bool]:
    """The newest whole turns in the last `budget` bytes of one file (None for a damaged line),
    and whether older turns were left out. An old-style file is streamed, keeping only what fits
    the budget."""
    if path.suffix == ".json":
        kept, size, cut = deque(), 0, False
        for record in legacy_records(path, name):
            kept.append(record)
            size += len(json.dumps(record, ensure_ascii=False))
            while size > budget and kept:
                size -= len(json.dumps(kept.popleft(), ensure_ascii=False))
                cut = True
        return list(kept), cut
    try:
        with open(path, "rb") as fh:
            end = fh.seek(0, os.SEEK_END)
            start = max(0, end - budget)
            fh.seek(start)
            data = fh.read(end - start)
    except OSError as exc:
        raise damaged(path, exc.strerror or type(exc).__name__, name) from None
    if start > 0:  # the first line is probably cut: start after it
        newline = data.find(b"\n")
        data = data[newline + 1:] if newline >= 0 else b""
    lines = [line for line in data.split(b"\n") if line.strip()]
    return [parse(line if len(line) <= MAX_TURN_BYTES else None) for line in lines], start > 0


# -- setting damage aside --------------------------------------------------------------------------
def set_aside(folder: Path, name: str, is_turn: Callable[[dict | None], bool]) -> int:
    """Under the exclusive lock: every damaged line of the thread's files (`is_turn` false: not
    JSON, not a turn, too long, a write cut short) appended to NAME.jsonl.damaged, and each file
    rewritten with its intact turns in order. Lines moved (0: none, or another process moved
    them first)."""
    moved = 0
    with locked(folder, name, exclusive=True):
        for path in (*parts(folder, name), jsonl(folder, name)):
            if path.is_file():
                moved += _set_aside_lines(path, set_aside_file(folder, name), is_turn)
    return moved


def _set_aside_lines(path: Path, aside: Path, is_turn) -> int:
    with open(path, "rb") as fh:
        bad = {line.start for line in scan(fh) if not line.blank and not is_turn(parse(line.data))}
        if not bad:
            return 0
        fh.seek(0)
        part = path.with_name(path.name + ".part")
        with open(part, "wb") as good, open(aside, "ab") as kept, open(path, "rb") as raw:
            for line in scan(fh):
                if line.start in bad:
                    copy_range(raw, line.start, line.end, kept)
                    if not line.ended:
                        kept.write(b"\n")
                elif not line.blank:
                    good.write(line.data + b"\n")
            kept.flush()
            os.fsync(kept.fileno())  # kept aside before the thread file loses them
    part.replace(path)
    return len(bad)


# -- writing ---------------------------------------------------------------------------------------
def _line(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def _append_bytes(path: Path, data: bytes, is_turn) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if size := os.fstat(fd).st_size:  # a last line without its newline first
            _end_last_line(path, size, fd, is_turn)
        os.write(fd, data)  # one write of whole lines, O_APPEND: never interleaved with another's
        os.fsync(fd)
    finally:
        os.close(fd)


def _end_last_line(path: Path, size: int, fd: int, is_turn) -> None:
    """A last line without its newline: a turn gets its newline; a write cut short (its writer
    killed) is set aside, then cut off."""
    end = _last_line_end(path, size)
    if end == size:
        return
    with open(path, "rb") as fh:
        fh.seek(end)
        tail = fh.read(MAX_TURN_BYTES + 1) if size - end <= MAX_TURN_BYTES else None
        if tail is not None and (not tail.strip() or is_turn(parse(tail))):
            os.write(fd, b"\n")
            return
        with open(set_aside_file(path.parent, path.name[:-len(".jsonl")]), "ab") as kept:
            copy_range(fh, end, size, kept)
            kept.write(b"\n")
            kept.flush()
            os.fsync(kept.fileno())
    os.truncate(path, end)


def _last_line_end(path: Path, size: int) -> int:
    """The size up to the end of the last whole line (`size` when the file ends with one)."""
    with open(path, "rb") as fh:
        end = size
        while end > 0:
            start = max(0, end - CHUNK)
            fh.seek(start)
            chunk = fh.read(end - start)
            if (newline := chunk.rfind(b"\n")) >= 0:
                return start + newline + 1
            end = start
    return 0


def _convert_legacy(folder: Path, name: str) -> None:
    """NAME.json (old style) becomes the head of NAME.jsonl, streamed; then it goes."""
    old, new = legacy(folder, name), jsonl(folder, name)
    part = folder / f"{name}.jsonl.part"
    with open(part, "wb") as out:
        for record in legacy_records(old, name):
            out.write(_line(record))
        if new.is_file():
            with open(new, "rb") as current:
                while chunk := current.read(CHUNK):
                    out.write(chunk)
    part.replace(new)
    old.unlink()


def _rotate(folder: Path, name: str) -> None:
    numbers = [int(p.name.rsplit(".", 1)[1]) for p in parts(folder, name)]
    jsonl(folder, name).replace(folder / f"{name}.jsonl.{max(numbers, default=0) + 1}")


def line_bytes(record: dict) -> int:
    """The size of the line a turn takes in its file."""
    return len(_line(record))


def append(folder: Path, name: str, record: dict, rotate_bytes: int,
           is_turn: Callable[[dict | None], bool]) -> None:
    """Add one turn, under the exclusive lock (rotating the file first when it is past the cap)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = _line(record)
    with locked(folder, name, exclusive=True):
        if legacy(folder, name).is_file():
            _convert_legacy(folder, name)
        current = jsonl(folder, name)
        if current.is_file() and 0 < current.stat().st_size and current.stat().st_size + len(data) > rotate_bytes:
            _rotate(folder, name)
        _append_bytes(current, data, is_turn)


def rewrite(folder: Path, name: str, records: list[dict]) -> None:
    """The thread replaced whole by these turns (atomic), under the exclusive lock."""
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder, name, exclusive=True):
        part = folder / f"{name}.jsonl.part"
        part.write_bytes(b"".join(_line(r) for r in records))
        for old in (legacy(folder, name), *parts(folder, name)):
            old.unlink(missing_ok=True)
        part.replace(jsonl(folder, name))


def remove(folder: Path, name: str) -> None:
    """Every file of the thread and its damaged lines set aside (its lock file stays: a writer
    may be waiting on it)."""
    with locked(folder, name, exclusive=True):
        for path in all_files(folder, name):
            path.unlink()
        set_aside_file(folder, name).unlink(missing_ok=True)
