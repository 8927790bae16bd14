"""Conversation threads: their turns, saved under <data_dir>/threads/ (assistant/conversation/thread_file.py),
listed (a damaged one named as such), reopened, deleted and exported as Markdown with each
answer's citations."""
from __future__ import annotations

import contextlib
import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

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
        an export); a damaged file is a one-line ThreadDamaged."""
        name = checked_name(name)
        files = thread_file.all_files(self.folder, name)
        if not files:
            if create:
                return Thread(name)
            known = ", ".join(self.names()) or "none"
            raise AssistantError(f"no thread named {name} (threads: {known})")
        with thread_file.locked(self.folder, name, exclusive=False):
            records, cut = [], False
            if whole:
                for path in files:
                    records += thread_file.file_records(path, name)
            else:  # newest file first, until the byte budget is spent
                budget = self.read_bytes
                for path in reversed(files):
                    newest, cut = thread_file.tail_records(path, name, budget)
                    records[:0] = newest
                    budget -= sum(len(json.dumps(r, ensure_ascii=False)) + 1 for r in newest)
                    if cut or budget <= 0:
                        cut = cut or path != files[0]
                        break
        return Thread(name, [_turn(r, files[-1], name) for r in records], older_not_loaded=cut)

    def summary(self, name: str) -> "ThreadSummary":
        """Turns, first question, and the damage if the thread cannot be read (never raised)."""
        files = thread_file.all_files(self.folder, name)
        try:
            with thread_file.locked(self.folder, name, exclusive=False):
                first = next((r for path in files for r in thread_file.file_records(path, name)), None)
                count = sum(thread_file.count_records(path, name) for path in files)
            newest = self.load(name)
        except AssistantError as exc:
            return ThreadSummary(name, 0, "", damaged=str(exc))
        except OSError as exc:
            return ThreadSummary(name, 0, "", damaged=f"cannot read it: {exc.strerror or exc}")
        question = _turn(first, files[0], name).question if first else ""
        return ThreadSummary(name, max(count, len(newest.turns)), question)

    def summaries(self) -> list["ThreadSummary"]:
        """Every thread, the most recent first; a damaged one is listed as damaged."""
        return [self.summary(name) for name in self.names()]

    def append(self, name: str, turn: Turn) -> None:
        """Add one answered turn; safe beside other writers of the same thread."""
        try:
            thread_file.append(self.folder, checked_name(name), asdict(turn), self.rotate_bytes)
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


def _turn(record: dict, path: Path, name: str) -> Turn:
    try:
        turn = Turn(**{**record, "citations": [Cited(**c) for c in record.get("citations", [])]})
    except (TypeError, AttributeError):
        raise thread_file.damaged(path, "a turn without its fields", name) from None
    texts = (turn.question, turn.answer, turn.standalone, turn.strategy,
             *(text for c in turn.citations for text in (c.label, c.title)))
    if not all(isinstance(t, str) for t in texts) or not isinstance(turn.asked_at, (int, float)):
        raise thread_file.damaged(path, "a turn with a field of the wrong type", name)
    return turn


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
