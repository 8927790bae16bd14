"""Ctrl-C in a long command: the first asks the work to stop at its next check (a resumable
point), a second stops at once. Either way the command ends with exit code 130."""
from __future__ import annotations

import contextlib
import signal
import threading

import typer

from models.errors import Interrupted


def _in_native_callback(frame) -> bool:
    """Whether Python runs code of llama-cpp-python here, perhaps a callback of llama.cpp (its
    logger, while a model loads): a KeyboardInterrupt raised in a ctypes callback is printed and
    swallowed, and the command ran on to its end and exited 0 (the trial's ignored Ctrl-C)."""
    while frame is not None:
        if "llama_cpp" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


class StopFlag:
    """Called, whether Ctrl-C was pressed. While `loading` (work that writes nothing: models
    loading) the first Ctrl-C also raises KeyboardInterrupt at once, except inside
    llama-cpp-python; a KeyboardInterrupt a library swallows there still leaves the flag set,
    which loaded() turns into Interrupted."""

    def __init__(self, loading: bool):
        self.event = threading.Event()
        self.loading = loading

    def __call__(self) -> bool:
        return self.event.is_set()

    def loaded(self) -> None:
        """The models are loaded: from now on the first Ctrl-C only sets the flag."""
        self.loading = False
        if self.event.is_set():
            raise Interrupted("stopped while the models loaded")


@contextlib.contextmanager
def stop_on_ctrl_c(stopping: str, loading: bool = False):
    """Within the block, the first Ctrl-C prints `stopping` and makes the yielded StopFlag
    true; the work checks it often (between tokens, decode steps, small batches) and raises
    Interrupted. A second Ctrl-C raises KeyboardInterrupt wherever the program is."""
    flag = StopFlag(loading)
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        if flag.event.is_set():
            raise KeyboardInterrupt
        flag.event.set()
        if flag.loading and not _in_native_callback(frame):
            raise KeyboardInterrupt
        typer.echo(f"\n{stopping} (Ctrl-C again to stop at once)...", err=True)

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield flag
    finally:
        with contextlib.suppress(ValueError, TypeError):
            signal.signal(signal.SIGINT, previous)
