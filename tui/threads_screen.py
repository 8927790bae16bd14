"""The pick-list of saved conversations (F7): each with its number of turns and first question;
Enter reopens the chosen one."""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


@dataclass
class SavedThread:
    """A saved thread as the pick-list shows it (Backend.thread_list)."""

    name: str
    turns: int
    first_question: str = ""


def thread_line(saved: SavedThread, current: str | None) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(saved.name, "bold")
    out.append(f"  {saved.turns} turn(s)", "dim")
    if saved.name == current:
        out.append("  (open now)", "green")
    if saved.first_question:
        out.append(f"  {saved.first_question}", "magenta")
    return out


class ThreadsScreen(ModalScreen[str | None]):
    """Saved threads, the most recent first; Enter returns the chosen one's name."""

    BINDINGS = [Binding("escape,f7", "dismiss(None)", "Close")]

    def __init__(self, saved: list[SavedThread], current: str | None = None):
        super().__init__()
        self.saved = saved
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="threads-box"):
            yield Static(Text("Saved conversations (also `assistant chat --thread NAME`)", "bold"),
                         id="threads-title")
            yield OptionList(*[Option(thread_line(s, self.current), id=s.name) for s in self.saved], id="threads")
            yield Static(Text("↑↓ choose · Enter reopens it · Esc closes · Ctrl+N on the main screen starts a "
                              "new one" if self.saved else "No saved conversation yet: every question you ask "
                              "starts or continues one. Esc closes.", "dim"), id="threads-keys")

    def on_mount(self) -> None:
        self.query_one("#threads", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)
