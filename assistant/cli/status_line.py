"""What the assistant is doing, on one line of the terminal, until the answer starts.

Without --trace a question used to leave the terminal blank until the first token, for tens of
seconds on a small machine. The status line shows at once ("Getting ready…"), then each step as
the plain trace says it ("Looked up 8 passages for …", "Read as a chain: …"), always rewritten in
place on stderr, and is wiped before the answer's tokens or the answer are written. Only on a
terminal: piped output and --json stay as they were.

While the reader reads an answer's passages (tens of seconds before its first word on a laptop)
the line also counts the seconds ("Reading 5 passages … 12 s"), rewritten each second by a
thread until the next event. With --trace the steps are lines of their own and the status line
shows only that count ("  reading… 12 s"), under the trace's "Reading 5 passages" line.
"""
from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import TextIO

from ..events.core import Event, Reading, Token
from ..presentation.step_text import StepNarrator

READY = "Getting ready…"


class StatusLine:
    def __init__(self, enabled: bool, stream: TextIO | None = None, steps: bool = True):
        """`steps` False (--trace): only the reading count shows; the trace writes the steps."""
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.steps = steps
        self.narrator = StepNarrator()  # its own: the trace writer keeps its state apart
        self.shown = False
        self._lock = threading.Lock()
        self._stop: threading.Event | None = None
        self._ticker: threading.Thread | None = None

    def start(self) -> None:
        if self.steps:
            self.say(READY)

    def event(self, event: Event) -> None:
        """The event's plain line as the status; a token means the answer is being written."""
        self.stop_counting()
        if not self.enabled:
            return
        if isinstance(event, Token):
            if event.depth == 0 and self.steps:  # the answer streams on this line from now on
                self.clear()
                self.enabled = False
            return
        line = self.narrator.line(event)
        if line and self.steps:
            self.say(line.strip())

    def count_reading(self, event: Event) -> None:
        """After a Reading event has been shown: the seconds it has been reading, each second."""
        if not self.enabled or not isinstance(event, Reading):
            return
        text = self.narrator.line(event).strip() if self.steps else "  reading…"
        started, stop = time.monotonic(), threading.Event()

        def tick() -> None:
            while not stop.wait(1.0):
                self.say(text, stop, suffix=f" {time.monotonic() - started:.0f} s")

        self._stop, self._ticker = stop, threading.Thread(target=tick, daemon=True)
        self._ticker.start()

    def stop_counting(self) -> None:
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = self._stop = None
            if not self.steps:  # the count's own line goes; a step's line is rewritten by the next
                self.clear()

    def say(self, text: str, unless: threading.Event | None = None, suffix: str = "") -> None:
        """`text` cut to the terminal's width, then `suffix` (the seconds: never cut off)."""
        with self._lock:
            if not self.enabled or (unless is not None and unless.is_set()):
                return
            width = max(20, shutil.get_terminal_size().columns) - 1 - len(suffix)
            shown = text if len(text) <= width else text[: width - 1] + "…"
            self.stream.write("\r\x1b[K" + shown + suffix)
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        with self._lock:
            if self.enabled and self.shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self.shown = False
