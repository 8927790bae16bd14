"""The settings screen's "get a reader" part: the catalog readers not installed yet (ordered for this
machine), pulled in a worker thread with a progress bar and a Cancel button; offline, the same one
line `assistant models pull` gives. Posts `Pulled` when a reader is installed."""
from __future__ import annotations

import threading

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Label, ProgressBar, Select, Static

from models.errors import AssistantError, Cancelled


def entry_label(placed) -> str:
    entry = placed.entry
    good = f" · {entry.good_for}" if entry.good_for else ""
    return f"{entry.name} · {entry.size_gb:g} GB · {placed.note}{good}"


class PullPanel(Vertical):
    """Pick a catalog reader, Pull; while it downloads, a bar and Cancel."""

    class Pulled(Message):
        def __init__(self, installed):
            super().__init__()
            self.installed = installed

    class Progressed(Message):
        def __init__(self, what: str, done: int, total: int):
            super().__init__()
            self.what, self.done, self.total = what, done, total

    class Ended(Message):
        def __init__(self, installed=None, error: str = "", cancelled: bool = False):
            super().__init__()
            self.installed, self.error, self.cancelled = installed, error, cancelled

    def __init__(self, backend, settings, **kwargs):
        super().__init__(**kwargs)
        self.backend, self.settings = backend, settings
        self._stop: threading.Event | None = None
        try:
            self.choices = backend.pullable_readers(settings)
        except AssistantError:
            self.choices = []

    @property
    def busy(self) -> bool:
        return self._stop is not None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="settings-row"):
            yield Label("Get", classes="settings-label")
            if self.choices:
                yield Select([(entry_label(p), p.entry.name) for p in self.choices], allow_blank=False,
                             compact=True, id="pull-choice")
                yield Button("Pull", id="pull", compact=True)
            else:
                yield Static(Text("every catalog reader is installed", "dim"))
        with Horizontal(id="pull-running"):
            yield ProgressBar(id="pull-progress", show_eta=False)
            yield Button("Cancel", id="pull-cancel", compact=True)
        yield Static("", id="pull-status")

    def on_mount(self) -> None:
        self.query_one("#pull-running").display = False
        self.query_one("#pull-status").display = False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "pull":
            event.stop()
            self.start(str(self.query_one("#pull-choice", Select).value))
        elif event.button.id == "pull-cancel":
            event.stop()
            self.cancel()

    def start(self, name: str) -> None:
        if self.busy:
            return
        entry = next(p.entry for p in self.choices if p.entry.name == name)
        self._stop = threading.Event()
        self.query_one("#pull-running").display = True
        self.query_one("#pull-progress", ProgressBar).update(total=None, progress=0)
        self.query_one("#pull", Button).disabled = True
        self.say(f"Pulling {name} ({entry.size_gb:g} GB)… Cancel stops it; a later pull resumes.", "")
        self.pull_worker(entry, self._stop)

    def cancel(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self.say("Cancelling…", "yellow")

    @work(thread=True, exclusive=True, group="pull", exit_on_error=False)
    def pull_worker(self, entry, stop: threading.Event) -> None:
        progress = lambda what, done, total: self.post_message(self.Progressed(what, done, total))  # noqa: E731
        try:
            installed = self.backend.pull_reader(self.settings, entry, on_progress=progress, should_stop=stop.is_set)
            self.post_message(self.Ended(installed))
        except Cancelled as exc:
            self.post_message(self.Ended(error=str(exc), cancelled=True))
        except AssistantError as exc:
            self.post_message(self.Ended(error=str(exc)))
        except Exception as exc:  # never a crash: show it, keep the settings usable
            self.post_message(self.Ended(error=f"unexpected {type(exc).__name__}: {exc}"))

    def on_pull_panel_progressed(self, message: Progressed) -> None:
        if not self.busy:
            return
        self.query_one("#pull-progress", ProgressBar).update(total=message.total or None, progress=message.done)
        if not self._stop.is_set():
            mb = lambda n: f"{n / 2**20:.0f} MB"  # noqa: E731
            self.say(f"{message.what}: {mb(message.done)} of {mb(message.total)}", "")

    def on_pull_panel_ended(self, message: Ended) -> None:
        self._stop = None
        self.query_one("#pull-running").display = False
        self.query_one("#pull", Button).disabled = False
        if message.installed is not None:
            self.say(f"✓ pulled {message.installed.name} (hash checked); picked as the reader: Apply to use it.",
                     "green")
            self.post_message(self.Pulled(message.installed))
        else:
            self.say(("" if message.cancelled else "✗ ") + message.error, "yellow" if message.cancelled else "red")

    def say(self, text: str, style: str) -> None:
        status = self.query_one("#pull-status", Static)
        status.update(Text(text, style))
        status.display = bool(text)  # no blank line while there is nothing to say
