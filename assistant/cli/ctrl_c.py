"""Ctrl-C in a long command: the first asks the work to stop at its next check (a resumable
point), a second stops at once. Either way the command ends with exit code 130."""
from __future__ import annotations

import contextlib
import signal
import threading

import typer


@contextlib.contextmanager
def stop_on_ctrl_c(stopping: str):
    """Within the block, the first Ctrl-C prints `stopping` and makes the yielded should_stop()
    true; the work checks it often (between tokens, decode steps, small batches) and raises
    Interrupted. A second Ctrl-C raises KeyboardInterrupt wherever the program is."""
    stop = threading.Event()
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        typer.echo(f"\n{stopping} (Ctrl-C again to stop at once)...", err=True)

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield stop.is_set
    finally:
        with contextlib.suppress(ValueError, TypeError):
            signal.signal(signal.SIGINT, previous)
