"""A modal pick-list: a title, one line per choice, a line of keys; Enter returns the chosen
choice's id (the transcript of this session, F5, and the saved conversations, F7)."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class PickListScreen(ModalScreen):
    """Subclasses give `name` (the ids: #NAME-box, #NAME-title, #NAME, #NAME-keys), `title`,
    `keys` (what to press, or what to do while the list is empty), the lines as Options, and
    which one starts highlighted; `chosen` turns the selected option's id into the result."""

    name_id = ""

    def __init__(self, title: str, options: list[Option], keys: str, highlighted: int | None = None):
        super().__init__()
        self.title_text, self.choices, self.keys, self.highlighted = title, options, keys, highlighted

    def compose(self) -> ComposeResult:
        with Vertical(id=f"{self.name_id}-box"):
            yield Static(Text(self.title_text, "bold"), id=f"{self.name_id}-title")
            yield OptionList(*self.choices, id=self.name_id)
            yield Static(Text(self.keys, "dim"), id=f"{self.name_id}-keys")

    def on_mount(self) -> None:
        options = self.query_one(f"#{self.name_id}", OptionList)
        if self.highlighted is not None:
            options.highlighted = self.highlighted
        options.focus()

    def chosen(self, option_id: str):
        return option_id

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.chosen(event.option.id))
