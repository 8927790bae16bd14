"""Ctrl-C in a long command: the first asks the work to stop at its next check (a resumable
point), a second stops at once. Either way the command ends with exit code 130."""
from __future__ import annotations

import contextlib
import signal
import threading

import typer


def _in_native_callback(frame) -> bool:
    """Whether Python runs code of llama-cpp-python here, perhaps a callback of llama.cpp (its
    logger, while a model loads): a KeyboardInterrupt raised in a ctypes callback is printed and
    swallowed, and the command ran on to its end and exited 0 (the trial's ignored Ctrl-C)."""
    while frame is not None:
        if "llama_cpp" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def stop_on_ctrl_c(stopping: str, at_once: bool = False):
    """Within the block, the first Ctrl-C prints `stopping` and makes the yielded should_stop()
    true; the work checks it often (between tokens, decode steps, small batches) and raises
    Interrupted. A second Ctrl-C raises KeyboardInterrupt wherever the program is.

    `at_once` (work that writes nothing, such as loading models): the first Ctrl-C raises
    KeyboardInterrupt at once too, except inside llama-cpp-python, where only the flag is set."""
    stop = threading.Event()
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        if at_once and not _in_native_callback(frame):
            raise KeyboardInterrupt
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
