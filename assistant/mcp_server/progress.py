"""A slow tool's work (an ask: seconds to minutes) on a worker thread, each of its steps sent to
the client as an MCP progress notification in the plain words `ask --trace` uses ("Searched the
documents: ..."), and while the answer is written a line every few seconds. A client that asked
for progress sees the work move; one that resets its request timeout on progress (the TypeScript
SDK's resetTimeoutOnProgress) does not give up on a long answer. The work stops at its next
token when the client cancels the call or its time bound passes."""
from __future__ import annotations

import threading
import time
from typing import Callable, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread

from ..events.core import Event, Token
from ..presentation.step_text import StepNarrator

T = TypeVar("T")
HEARTBEAT_SECONDS = 5.0  # while tokens come and no step is said, a "writing" line this often
WRITING = "Writing the answer"
# work(on_event, should_stop): the tool's blocking call, told each event and asked whether to stop
Work = Callable[[Callable[[Event], None], Callable[[], bool]], T]


class Deadline(Exception):
    """The work passed its time bound and was stopped."""


async def run_with_progress(report, work: Work, seconds: float) -> T:
    """work's result, its steps sent through `report(progress, total, message)` (an MCP Context's
    report_progress: a no-op for a client that did not ask for progress); Deadline after `seconds`."""
    stop = threading.Event()
    deadline = time.monotonic() + seconds
    narrator = StepNarrator()
    said = {"count": 0, "at": time.monotonic()}

    def on_event(event: Event) -> None:
        line = None if isinstance(event, Token) else narrator.line(event)
        now = time.monotonic()
        if line is None:
            if not isinstance(event, Token) or now - said["at"] < HEARTBEAT_SECONDS:
                return
            line = WRITING
        said["count"] += 1
        said["at"] = now
        anyio.from_thread.run(report, said["count"], None, line)

    def should_stop() -> bool:
        return stop.is_set() or time.monotonic() > deadline

    try:
        # abandon_on_cancel: a cancelled call returns at once; `stop` then ends the work itself
        result = await anyio.to_thread.run_sync(work, on_event, should_stop, abandon_on_cancel=True)
    except Exception:
        if time.monotonic() > deadline:
            raise Deadline() from None
        raise
    finally:
        stop.set()
    return result
