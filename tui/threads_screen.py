"""The pick-list of saved conversations (F7): each with its number of turns and first question;
Enter reopens the chosen one."""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.widgets.option_list import Option

from .pick_list import PickListScreen


@dataclass
class SavedThread:
    """A saved thread as the pick-list shows it (Backend.thread_list)."""

    name: str
    turns: int
    first_question: str = ""
    damaged: bool = False  # the file cannot be read: reopening it says why


def thread_line(saved: SavedThread, current: str | None) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(saved.name, "bold")
    if saved.damaged:
        out.append("  (damaged file)", "red")
        return out
    out.append(f"  {saved.turns} turn(s)", "dim")
    if saved.name == current:
        out.append("  (open now)", "green")
    if saved.first_question:
        out.append(f"  {saved.first_question}", "magenta")
    return out


class ThreadsScreen(PickListScreen):
    """Saved threads, the most recent first; Enter returns the chosen one's name."""

    BINDINGS = [Binding("escape,f7", "dismiss(None)", "Close")]
    name_id = "threads"

    def __init__(self, saved: list[SavedThread], current: str | None = None):
        keys = ("↑↓ choose · Enter reopens it · Esc closes · Ctrl+N on the main screen starts a new one" if saved
                else "No saved conversation yet: every question you ask starts or continues one. Esc closes.")
        super().__init__("Saved conversations (also `assistant chat --thread NAME`)",
                         [Option(thread_line(s, current), id=s.name) for s in saved], keys)
        self.saved = saved
        self.current = current
