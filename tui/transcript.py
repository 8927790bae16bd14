"""The session's transcript: every question asked, with its steps and answer, to revisit (F5)."""
from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.binding import Binding
from textual.widgets.option_list import Option

from assistant.events.core import Answer, Event
from assistant.presentation.step_text import passage_name

from .panels import marked
from .pick_list import PickListScreen


@dataclass
class Exchange:
    """One question of this session: the events it produced (no tokens) and how it ended."""

    question: str
    spec: str
    events: list[Event] = field(default_factory=list)
    ending: str = ""  # "", "stopped" or an error line

    @property
    def answer(self) -> Answer | None:
        return next((e for e in reversed(self.events) if isinstance(e, Answer)), None)


def entry(number: int, exchange: Exchange) -> Text:
    """A transcript line: the question, then the answer with its markers and its sources' names."""
    out = Text()
    out.append(f"{number}. ", "dim")
    out.append(exchange.question, "bold magenta")
    out.append(f"  [{exchange.spec}]\n", "dim")
    answer = exchange.answer
    if answer is not None:
        out.append("   ")
        out.append_text(marked(answer.marked_text or answer.text or "(no answer)"))
        if answer.citations:
            names = "  ".join(f"[{i}] {passage_name(p)}" for i, p in enumerate(answer.citations, 1))
            out.append(f"\n   {names}", "cyan")
    elif exchange.ending:
        out.append(f"   {exchange.ending}", "yellow")
    else:
        out.append("   (still being answered)", "dim")
    return out


class TranscriptScreen(PickListScreen):
    """Lists the session's exchanges, newest last; Enter returns the chosen one's index."""

    BINDINGS = [Binding("escape,f5", "dismiss(None)", "Close")]
    name_id = "transcript"

    def __init__(self, exchanges: list[Exchange], current: int | None = None):
        keys = ("↑↓ choose · Enter shows the question's steps and answer · Esc closes" if exchanges
                else "No question yet in this session. Esc closes.")
        highlighted = (current if current is not None else len(exchanges) - 1) if exchanges else None
        super().__init__("Transcript of this session",
                         [Option(entry(i + 1, x), id=str(i)) for i, x in enumerate(exchanges)], keys, highlighted)
        self.exchanges = exchanges
        self.current = current

    def chosen(self, option_id: str) -> int:
        return int(option_id)
