"""Stopping a model call part-way, for the Stop key and for quitting mid-answer."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable

from models.errors import Interrupted

StopCheck = Callable[[], bool]  # true once the user asked to stop (the Stop key, quitting, Ctrl-C)


class Interruptible:
    """Mixin for a model whose long calls check, between tokens or batches, whether to stop.

    Without it a stopped question still ran its current prompt and answer to the end (seconds
    to minutes with a large reader on a laptop) before the next question or the exit.
    """

    _should_stop: StopCheck | None = None

    @contextmanager
    def interruptible(self, should_stop: StopCheck | None):
        """Within the block, calls raise Interrupted soon after should_stop() turns true."""
        previous, self._should_stop = self._should_stop, should_stop
        try:
            yield
        finally:
            self._should_stop = previous

    def check_stop(self) -> None:
        if self._should_stop is not None and self._should_stop():
            raise Interrupted("the answer was stopped before its end")
