"""Conversation threads: their turns, saved under <data_dir>/threads/ (assistant/conversation/thread_file.py),
listed (a damaged one named as such), reopened, deleted and exported as Markdown with each
answer's citations. A thread's damaged lines cost only themselves: its intact turns are read,
counted and continued, the damaged lines set aside beside it (thread_file.set_aside) and named
in one line (`Thread.set_aside`, `ThreadSummary.set_aside`)."""
from __future__ import annotations

import contextlib
import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

from models.errors import AssistantError

from . import thread_file

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # a file name on every system, no path
CONTEXT_TURNS = 3  # turns a follow-up's rewrite sees: older ones rarely hold what a pronoun means
READ_BYTES = 1 << 20  # of a thread's newest turns read to open it (settings: thread_read_kb)
ROTATE_BYTES = 16 << 20  # a thread's current file moves aside past this (settings: thread_file_mb)


@dataclass
class Cited:
    """A cited source, as a thread keeps it (the passage's text is not kept)."""

    label: str
    title: str = ""


@dataclass
class Turn:
    question: str  # as asked
    answer: str  # with its [n] markers
    standalone: str = ""  # the rewritten question, when it differs from the question
    citations: list[Cited] = field(default_factory=list)
    strategy: str = ""
    asked_at: float = 0.0

    @classmethod
    def from_answer(cls, question: str, standalone: str, answer, strategy: str = "") -> "Turn":
        """A turn from the run's Answer event."""
        cited = [Cited(p.citation_label(), p.title) for p in answer.citations]
        return cls(question, answer.marked_text or answer.text, standalone if standalone != question else "",
                   cited, strategy, time.time())


@dataclass
class Thread:
    name: str
    turns: list[Turn] = field(default_factory=list)
    older_not_loaded: bool = False  # older turns stay on disk (an export reads them all)
    set_aside: str = ""  # one line naming where damaged lines found on this read were moved

    def recent(self, n: int = CONTEXT_TURNS) -> list[Turn]:
        return self.turns[-n:]

    def to_markdown(self) -> str:
        """The conversation for a person: each question, its rewrite, the answer and its sources."""
        lines = [f"# {self.name}", ""]
        for i, turn in enumerate(self.turns, 1):
            lines += [f"## {i}. {turn.question}", ""]
            if turn.standalone:
                lines += [f"*Asked as:* {turn.standalone}", ""]
            lines += [turn.answer or "(no answer)", ""]
            if turn.citations:
                lines.append("Sources:")
                lines += [f"{n}. {c.label}" for n, c in enumerate(turn.citations, 1)]
                lines.append("")
        return "\n".join(lines)


def checked_name(name: str) -> str:
    if not NAME.match(name or ""):
        raise AssistantError(f"bad thread name {name!r}: use letters, digits, '.', '_' or '-' "
                             "(at most 64, starting with a letter or digit)")
    return name


class ThreadStore:
    """Threads under <data_dir>/threads/, each turn appended as it is answered (thread_file:
    locked appends, bounded reads, rotation past a size cap, old NAME.json files still read)."""

    def __init__(self, data_dir: Path, read_bytes: int = READ_BYTES, rotate_bytes: int = ROTATE_BYTES):
        self.folder = Path(data_dir) / "threads"
        self.read_bytes = read_bytes
        self.rotate_bytes = rotate_bytes

    def _path(self, name: str) -> Path:
        """The thread's current file (a bad name: an AssistantError)."""
        return thread_file.jsonl(self.folder, checked_name(name))

    def exists(self, name: str) -> bool:
        return bool(thread_file.all_files(self.folder, checked_name(name)))

    def names(self) -> list[str]:
        """Thread names, the most recently changed first."""
        if not self.folder.is_dir():
            return []
        changed: dict[str, float] = {}
        for path in [*self.folder.glob("*.json"), *self.folder.glob("*.jsonl")]:
            if NAME.match(path.stem) and path.is_file():
                with contextlib.suppress(OSError):
                    changed[path.stem] = max(changed.get(path.stem, 0.0), path.stat().st_mtime)
        return sorted(changed, key=lambda n: (-changed[n], n))

    def load(self, name: str, create: bool = False, whole: bool = False) -> Thread:
        """The thread's newest turns (those in its last `read_bytes`), or all of them (`whole`, for
        an export). Damaged lines are skipped and set aside (`set_aside` says where); an old-style
        file that cannot be read is a one-line ThreadDamaged."""
        name = checked_name(name)
        files = thread_file.all_files(self.folder, name)
        if not files:
            if create:
                return Thread(name)
            known = ", ".join(self.names()) or "none"
            raise AssistantError(f"no thread named {name} (threads: {known})")
        turns: list[Turn] = []
        damage, cut = 0, False
        with thread_file.locked(self.folder, name, exclusive=False):
            if whole:
                for path in files:
                    found = list(_turns(path, name, thread_file.file_records(path, name)))
                    turns += [t for t in found if t is not None]
                    damage += found.count(None)
            else:  # newest file first, until the byte budget is spent
                budget = self.read_bytes
                for path in reversed(files):
                    records, cut = thread_file.tail_records(path, name, budget)
                    found = list(_turns(path, name, records))
                    turns[:0] = [t for t in found if t is not None]
                    damage += found.count(None)
                    budget -= sum(len(json.dumps(r, ensure_ascii=False)) + 1 for r in records if r is not None)
                    if cut or budget <= 0:
                        cut = cut or path != files[0]
                        break
        return Thread(name, turns, older_not_loaded=cut, set_aside=self._set_aside(name) if damage else "")

    def summary(self, name: str) -> "ThreadSummary":
        """Turns (the intact ones, as an export writes them), first question, where damaged lines
        are kept, and the damage if the thread cannot be read at all (never raised)."""
        files = thread_file.all_files(self.folder, name)
        count, damage, first = 0, 0, None
        try:
            with thread_file.locked(self.folder, name, exclusive=False):
                for path in files:
                    for turn in _turns(path, name, thread_file.file_records(path, name)):
                        count += turn is not None
                        damage += turn is None
                        first = first or turn
        except AssistantError as exc:
            return ThreadSummary(name, 0, "", damaged=str(exc))
        except OSError as exc:
            return ThreadSummary(name, 0, "", damaged=f"cannot read it: {exc.strerror or exc}")
        aside = thread_file.set_aside_file(self.folder, name)
        note = self._set_aside(name) if damage else (f"damaged lines kept in {aside}" if aside.is_file() else "")
        return ThreadSummary(name, count, first.question if first else "", set_aside=note)

    def _set_aside(self, name: str) -> str:
        """Move the thread's damaged lines beside it; one line saying where (or why they stay)."""
        try:
            moved = thread_file.set_aside(self.folder, name, lambda record: _turn(record) is not None)
        except OSError as exc:
            return f"damaged lines of the thread {name} skipped; they stay in its file ({exc.strerror or exc})"
        aside = thread_file.set_aside_file(self.folder, name)
        return f"{moved} damaged line{'s' * (moved != 1)} of the thread {name} set aside in {aside}" if moved else ""

    def set_aside_since(self, name: str, since: float) -> str:
        """One line naming where the thread's damaged lines are kept, when some were set aside
        after `since` (a time.time()); "" otherwise."""
        aside = thread_file.set_aside_file(self.folder, checked_name(name))
        with contextlib.suppress(OSError):
            if aside.stat().st_mtime >= since:
                return f"damaged lines of the thread {name} were set aside in {aside}"
        return ""

    def summaries(self) -> list["ThreadSummary"]:
        """Every thread, the most recent first; a damaged one is listed as damaged."""
        return [self.summary(name) for name in self.names()]

    def append(self, name: str, turn: Turn) -> None:
        """Add one answered turn; safe beside other writers of the same thread. A turn past
        TURN_CAP_BYTES is refused: opening the thread could not read it."""
        record = asdict(turn)
        if (size := thread_file.line_bytes(record)) > thread_file.TURN_CAP_BYTES:
            raise AssistantError(f"the turn is {size / 2 ** 20:.1f} MB, past a thread turn's "
                                 f"{thread_file.TURN_CAP_BYTES // 2 ** 20} MB: not saved to the thread {name}")
        try:
            thread_file.append(self.folder, checked_name(name), record, self.rotate_bytes,
                               lambda saved: _turn(saved) is not None)
        except OSError as exc:
            raise AssistantError(f"cannot save the turn to the thread {name} in {self.folder}: "
                                 f"{exc.strerror or exc}") from None

    def save(self, thread: Thread) -> Path:
        """Replace the thread's file by these turns (all of them: the caller holds the whole thread)."""
        try:
            thread_file.rewrite(self.folder, checked_name(thread.name), [asdict(t) for t in thread.turns])
        except OSError as exc:
            raise AssistantError(f"cannot save the thread {thread.name} in {self.folder}: "
                                 f"{exc.strerror or exc}") from None
        return thread_file.jsonl(self.folder, thread.name)

    def delete(self, name: str) -> None:
        name = checked_name(name)
        if not thread_file.all_files(self.folder, name):
            raise AssistantError(f"no thread named {name} (threads: {', '.join(self.names()) or 'none'})")
        try:
            thread_file.remove(self.folder, name)
        except OSError as exc:
            raise AssistantError(f"cannot delete the thread {name}: {exc.strerror or exc}") from None


@dataclass
class ThreadSummary:
    """A thread as a list shows it; `damaged` says why it cannot be read ("" when it can)."""

    name: str
    turns: int
    first_question: str = ""
    damaged: str = ""
    set_aside: str = ""  # where the thread's damaged lines are kept ("" when it has none)


def _turn(record: dict | None) -> Turn | None:
    """The turn a record holds; None when it is damage (not a turn, a field of the wrong type,
    text that is not UTF-8). Fields a newer version added are left out."""
    if not isinstance(record, dict):
        return None
    known = {k: v for k, v in record.items() if k in Turn.__dataclass_fields__}
    try:
        citations = known.get("citations", [])
        turn = Turn(**{**known, "citations": [Cited(**c) for c in citations]})
        texts = (turn.question, turn.answer, turn.standalone, turn.strategy,
                 *(text for c in turn.citations for text in (c.label, c.title)))
        if not all(isinstance(t, str) for t in texts) or isinstance(turn.asked_at, bool) \
                or not isinstance(turn.asked_at, (int, float)) or not isinstance(citations, list):
            return None
        "".join(texts).encode("utf-8")  # a lone surrogate ("\\ud800" in the JSON) cannot be shown
    except (TypeError, AttributeError, UnicodeEncodeError):
        return None
    return turn


def _turns(path: Path, name: str, records) -> Iterator[Turn | None]:
    """The turns of one file's records, streamed, None for each damaged one. An old-style file
    cannot set a turn aside line by line: a bad one there is a ThreadDamaged."""
    for record in records:
        turn = _turn(record)
        if turn is None and path.suffix == ".json":
            raise thread_file.damaged(path, "a turn without its fields or of the wrong type", name)
        yield turn


def name_from_question(question: str, taken: set[str] | list[str] = ()) -> str:
    """A new thread's name from its first question ("Who leads Heron?" -> who-leads-heron), made
    unique against `taken` with -2, -3, ..."""
    words = re.findall(r"[a-z0-9]+", question.lower())
    base = "-".join(words)[:40].rstrip("-") or "conversation"
    taken = set(taken)
    name, n = base, 2
    while name in taken:
        name, n = f"{base[:36]}-{n}", n + 1
    return checked_name(name)
