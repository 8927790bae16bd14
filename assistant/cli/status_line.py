"""What the assistant is doing, on one line of the terminal, until the answer starts.

Without --trace a question used to leave the terminal blank until the first token, for tens of
seconds on a small machine. The status line shows at once ("Getting ready…"), then each step as
the plain trace says it ("Looked up 8 passages for …", "Read as a chain: …"), always rewritten in
place on stderr, and is wiped before the answer's tokens or the answer are written. Only on a
terminal: piped output and --json stay as they were.
"""
from __future__ import annotations

import shutil
import sys
from typing import TextIO

from ..events.core import Event, Token
from ..presentation.step_text import StepNarrator

READY = "Getting ready…"


class StatusLine:
    def __init__(self, enabled: bool, stream: TextIO | None = None):
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.narrator = StepNarrator()  # its own: the trace writer keeps its state apart
        self.shown = False

    def start(self) -> None:
        self.say(READY)

    def event(self, event: Event) -> None:
        """The event's plain line as the status; a token means the answer is being written."""
        if not self.enabled:
            return
        if isinstance(event, Token):
            if event.depth == 0:  # the answer streams on this line from now on: leave it alone
                self.clear()
                self.enabled = False
            return
        line = self.narrator.line(event)
        if line:
            self.say(line.strip())

    def say(self, text: str) -> None:
        if not self.enabled:
            return
        width = max(20, shutil.get_terminal_size().columns) - 1
        shown = text if len(text) <= width else text[: width - 1] + "…"
        self.stream.write("\r\x1b[K" + shown)
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
