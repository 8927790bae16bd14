"""Conversation threads: their turns, saved as JSON files, listed, reopened, deleted and exported
as Markdown with each answer's citations."""
from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from models.errors import AssistantError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # a file name on every system, no path
CONTEXT_TURNS = 3  # turns a follow-up's rewrite sees: older ones rarely hold what a pronoun means


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
    """Threads as <data_dir>/threads/NAME.json, written whole after each turn (atomic rename)."""

    def __init__(self, data_dir: Path):
        self.folder = Path(data_dir) / "threads"

    def _path(self, name: str) -> Path:
        return self.folder / f"{checked_name(name)}.json"

    def exists(self, name: str) -> bool:
        return self._path(name).is_file()

    def names(self) -> list[str]:
        """Thread names, the most recently changed first."""
        if not self.folder.is_dir():
            return []
        files = sorted(self.folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        return [p.stem for p in files]

    def load(self, name: str, create: bool = False) -> Thread:
        path = self._path(name)
        if not path.is_file():
            if create:
                return Thread(name)
            known = ", ".join(self.names()) or "none"
            raise AssistantError(f"no thread named {name} (threads: {known})")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            turns = [Turn(**{**t, "citations": [Cited(**c) for c in t.get("citations", [])]})
                     for t in data["turns"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise AssistantError(f"the thread file {path} is damaged ({type(exc).__name__}); delete it "
                                 f"with `assistant chat --delete {name}`") from None
        return Thread(name, turns)

    def save(self, thread: Thread) -> Path:
        path = self._path(thread.name)
        self.folder.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(".json.part")
        part.write_text(json.dumps({"name": thread.name, "turns": [asdict(t) for t in thread.turns]},
                                   ensure_ascii=False, indent=1), encoding="utf-8")
        part.replace(path)
        return path

    def delete(self, name: str) -> None:
        path = self._path(name)
        if not path.is_file():
            raise AssistantError(f"no thread named {name} (threads: {', '.join(self.names()) or 'none'})")
        path.unlink()


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
