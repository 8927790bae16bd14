"""The help screen (F1 or ?): every key of the app, what it does and where it works."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("Enter", "ask the question typed in the question box"),
    ("↑ ↓", "in the question box: earlier questions, also from past sessions"),
    ("Tab, Shift+Tab", "move between question, steps, answer and detail"),
    ("↑ ↓ ← → Enter", "in the steps: browse; Enter opens or folds a step"),
    ("F4", "open or fold the highlighted step and all below it"),
    ("1-9", "outside the question box: show source [n] of the answer"),
    ("Ctrl+Y", "copy the answer with its sources"),
    ("o", "open the shown source's file (outside the question box)"),
    ("Ctrl+C", "copy the text selected with the mouse (never quits)"),
    ("F5", "transcript: this conversation's questions; Enter goes back to one"),
    ("Ctrl+N", "a new conversation (each question is a turn of the current one)"),
    ("F7", "saved conversations: reopen one (also `assistant chat`'s threads)"),
    ("F6", "export this conversation as Markdown (says where)"),
    ("F2", "settings: strategy, k, depth, reader (pull one), judge, collection"),
    ("F3", "index: add a folder or file to a collection, a dump, a passage file"),
    ("Esc", "stop the answer being worked on; closes a dialog"),
    ("/ or Ctrl+L", "back to the question box"),
    ("F1 or ?", "this help (? outside the question box)"),
    ("Ctrl+Q", "quit (asks first while an answer or indexing is running)"),
]


def keys_table() -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(ratio=1)
    for key, what in KEYS:
        table.add_row(Text(key), Text(what))  # Text: "[n]" is not markup
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,enter", "dismiss(None)", "Close", priority=True),
                Binding("question_mark", "dismiss(None)", "Close", show=False)]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(Text("Keys", "bold"), id="help-title")
            with VerticalScroll(id="help-keys"):
                yield Static(keys_table())
            yield Static(Text("Esc, Enter or F1 closes this help. Questions, settings and conversations "
                              "are kept in the data folder between sessions.", "dim"), id="help-foot")
