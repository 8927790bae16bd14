"""The question line: ↑/↓ through the questions asked before (also in past sessions), and a
multi-line paste kept whole (Textual's Input keeps only the first line)."""
from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class QuestionInput(Input):
    """The question line, with ↑/↓ through the questions asked before."""

    BINDINGS = [Binding("up", "history(-1)", "Previous", show=False),
                Binding("down", "history(1)", "Next", show=False)]

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.history: list[str] = []
        self._position = 0

    def restore(self, questions: list[str]) -> None:
        self.history = list(questions)
        self._position = len(self.history)

    def remember(self, question: str) -> None:
        if question and (not self.history or self.history[-1] != question):
            self.history.append(question)
        self._position = len(self.history)

    def _on_paste(self, event) -> None:
        """A multi-line paste becomes one question (Input alone keeps only its first line)."""
        lines = [line.strip() for line in event.text.splitlines() if line.strip()]
        if len(lines) < 2:
            return  # Input's own handler (called next, by Textual) pastes one line
        event.prevent_default()
        event.stop()
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(" ".join(lines))
        else:
            self.replace(" ".join(lines), *selection)
        self.app.notify(f"Pasted {len(lines)} lines as one question.", timeout=3)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._position = max(0, min(len(self.history), self._position + step))
        self.value = self.history[self._position] if self._position < len(self.history) else ""
        self.cursor_position = len(self.value)
