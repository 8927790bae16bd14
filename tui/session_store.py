"""What the app remembers across restarts, in the data dir: the questions asked, the last
settings chosen and the conversation that was open. A missing or damaged file is an empty
memory, never an error: the app must start."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

HISTORY_FILE = "app-history.json"
SETTINGS_FILE = "app-settings.json"
MAX_QUESTIONS = 200
SETTING_NAMES = ("k", "depth", "judge", "reader")  # what the settings screen changes, besides the strategy


@dataclass
class Remembered:
    questions: list[str] = field(default_factory=list)
    spec: str | None = None
    settings: dict = field(default_factory=dict)
    thread: str | None = None  # the conversation open when the app closed


def _read(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write(path: Path, data) -> bool:
    """Write via a temporary file, so a crash mid-write keeps the last good file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(temporary, path)
        return True
    except OSError:
        return False


class SessionStore:
    """Reads and writes the two files under `folder` (the data dir)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def load(self) -> Remembered:
        history = _read(self.folder / HISTORY_FILE)
        questions = [q for q in history if isinstance(q, str) and q.strip()] if isinstance(history, list) else []
        saved = _read(self.folder / SETTINGS_FILE)
        saved = saved if isinstance(saved, dict) else {}
        spec = saved.get("spec") if isinstance(saved.get("spec"), str) else None
        settings = {k: saved[k] for k in SETTING_NAMES if k in saved}
        thread = saved.get("thread") if isinstance(saved.get("thread"), str) else None
        return Remembered(questions[-MAX_QUESTIONS:], spec, settings, thread)

    def save_questions(self, questions: list[str]) -> bool:
        return _write(self.folder / HISTORY_FILE, list(questions)[-MAX_QUESTIONS:])

    def save_settings(self, spec: str, settings) -> bool:
        data = {"spec": spec, "k": settings.k, "depth": settings.depth, "judge": settings.judge,
                "reader": str(settings.reader) if settings.reader else None}
        return self._update(data)

    def save_thread(self, name: str | None) -> bool:
        return self._update({"thread": name})

    def _update(self, values: dict) -> bool:
        """The settings file with `values` changed and the rest kept."""
        saved = _read(self.folder / SETTINGS_FILE)
        return _write(self.folder / SETTINGS_FILE, {**(saved if isinstance(saved, dict) else {}), **values})
