"""Strategy, k, depth, reader (picked from the installed ones, or pulled from the catalog here:
tui/pull_panel.py), judge and the collection to ask within, changed without restarting (applies
to the next question)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from models.config import JUDGE_KINDS, Settings
from models.errors import AssistantError

from .pull_panel import PullPanel


@dataclass
class Choice:
    """What the settings screen returns: a strategy spec and settings, both checked."""

    spec: str
    settings: Settings


class SettingsScreen(ModalScreen[Choice | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "apply", "Apply", priority=True),
    ]

    def __init__(self, backend, spec: str, settings: Settings):
        super().__init__()
        self.backend = backend
        self.spec = spec
        self.settings = settings

    def compose(self) -> ComposeResult:
        name, _, options = self.spec.partition(":")
        names = self.backend.strategy_names()
        s = self.settings
        with Vertical(id="settings-box"):
            yield Static("Settings — used from the next question on", id="settings-title")
            with VerticalScroll(id="settings-form"):
                yield from self._row("Strategy", Select([(n, n) for n in names], value=name if name in names
                                                        else names[0], allow_blank=False, compact=True,
                                                        id="strategy"))
                yield from self._row("Options", Input(options, placeholder="e.g. relevance=false,depth=2",
                                                      compact=True, id="options"))
                yield from self._row("k", Input(str(s.k), type="integer", compact=True, id="k"))
                yield from self._row("Depth", Input(str(s.depth), type="integer", compact=True, id="depth"))
                readers = _reader_choices(s)  # the bundled one and those `models pull|add` recorded
                yield from self._row("Reader", Select(readers, allow_blank=False, compact=True, id="installed-reader",
                                                      value=_current_reader(s, readers)))
                yield from self._row("Or file", Input(str(s.reader or "") if _current_reader(s, readers) == OTHER
                                                      else "", compact=True, id="reader",
                                                      placeholder="another .gguf file (overrides the pick)"))
                yield PullPanel(self.backend, s, id="pull-panel")
                collections = [(ALL, ALL)] + [(f"{c.name} ({c.documents} documents)", c.name)
                                              for c in self.backend.collections(s)]
                yield from self._row("Collection", Select(
                    collections, allow_blank=False, compact=True, id="collection",
                    value=s.collection if s.collection in [v for _, v in collections] else ALL))
                judges = [(kind, kind) for kind in JUDGE_KINDS]
                yield from self._row("Judge", Select(judges, allow_blank=False, compact=True,
                                                     value=s.judge if s.judge in JUDGE_KINDS else "reader",
                                                     id="judge"))
            yield Static("Enter or Ctrl+S applies · Esc cancels · Tab moves between fields",
                         id="settings-keys")
            yield Static("", id="settings-error")
            with Horizontal(id="settings-buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Cancel", id="cancel")

    @staticmethod
    def _row(name: str, widget) -> ComposeResult:
        with Horizontal(classes="settings-row"):
            yield Label(name, classes="settings-label")
            yield widget

    def on_mount(self) -> None:
        self.query_one("#strategy", Select).focus()  # not the scrolling form around it
        if self.app.is_headless:  # a still cursor keeps snapshots deterministic
            for field in self.query(Input):
                field.cursor_blink = False


    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.action_cancel()

    def action_cancel(self) -> None:
        """Esc stops a pull first (what was downloaded is kept), then closes."""
        pulling = self.query_one(PullPanel)
        if pulling.busy:
            pulling.cancel()
        else:
            self.dismiss(None)

    def on_pull_panel_pulled(self, message: PullPanel.Pulled) -> None:
        """A reader just pulled joins the pick-list, picked."""
        readers = _reader_choices(self.settings)
        picker = self.query_one("#installed-reader", Select)
        picker.set_options(readers)
        picker.value = message.installed.path
        self.query_one("#reader", Input).value = ""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    def action_apply(self) -> None:
        try:
            choice = self.checked_choice()
        except AssistantError as exc:
            self.query_one("#settings-error", Static).update(f"✗ {exc}")
            return
        self.dismiss(choice)

    def checked_choice(self) -> Choice:
        value = lambda wid: self.query_one(f"#{wid}", Input).value.strip()  # noqa: E731
        name = str(self.query_one("#strategy", Select).value)
        options = value("options")
        spec = f"{name}:{options}" if options else name
        self.backend.make_strategy(spec)  # ConfigError names the strategy's options
        k, depth = _integer("k", value("k")), _integer("depth", value("depth"))
        picked = str(self.query_one("#installed-reader", Select).value)
        reader = value("reader") or ("" if picked in (BUNDLED, OTHER) else picked)
        if reader:
            self.backend.check_reader(reader)
        judge = str(self.query_one("#judge", Select).value)
        collection = str(self.query_one("#collection", Select).value)
        settings = replace(self.settings.with_overrides(k=k, depth=depth, judge=judge),
                           reader=Path(reader).expanduser() if reader else None,
                           collection=None if collection == ALL else collection)
        return Choice(spec, settings)


BUNDLED, OTHER, ALL = "bundled", "other", "all collections"


def _reader_choices(settings: Settings) -> list[tuple[str, str]]:
    """(label, value) of the readers to pick from: the bundled SmolLM2, those `assistant models
    pull|add` recorded whose files still exist, and the configured file when it is none of them."""
    from models.downloads.installed import load_installed

    try:
        installed = [(m.name, m.path) for m in load_installed(settings.data_dir) if m.role == "reader" and m.exists]
    except AssistantError:
        installed = []
    choices = [("smollm2-135m (bundled, fast, weak)", BUNDLED), *installed]
    if settings.reader and str(settings.reader) not in {path for _, path in installed}:
        choices.append((f"{Path(settings.reader).name} (from the settings)", OTHER))
    return choices


def _current_reader(settings: Settings, choices: list[tuple[str, str]]) -> str:
    if not settings.reader:
        return BUNDLED
    return str(settings.reader) if str(settings.reader) in {v for _, v in choices} else OTHER


def _integer(name: str, text: str) -> int:
    """A whole-number setting typed into the form, within the range models.config declares."""
    from models.config import allowed
    from models.errors import ConfigError

    low, high = allowed(name).low, allowed(name).high
    try:
        number = int(text)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}") from None
    if not low <= number <= high:
        raise ConfigError(f"{name} must be from {low} to {high}, not {number}")
    return number
