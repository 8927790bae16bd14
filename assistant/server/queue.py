"""Questions queued for the one reader: each runs on a single worker thread, its events handed
to the request's async code as they come; a request that goes away stops its question."""
from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import AsyncIterator, Awaitable, Callable, Iterator

from assistant.events.core import Event

_DONE = object()
POLL_SECONDS = 0.25  # how often a waiting request checks whether its client is still there


class ReaderQueue:
    """One question at a time (the reader holds one context); later requests wait their turn."""

    def __init__(self):
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reader")
        self.waiting = 0

    def run(self, fn: Callable[[], object]) -> Awaitable:
        """A plain call (a model preload) in the queue."""
        return asyncio.get_running_loop().run_in_executor(self._executor, fn)

    async def events(self, ask: Callable[[Callable[[], bool]], Iterator[Event]],
                     disconnected: Callable[[], Awaitable[bool]] | None = None) -> AsyncIterator[Event]:
        """The events of ask(should_stop), run in the queue. Leaving the loop early (the client
        went: the response is cancelled, or `disconnected()` says so) stops the question at its
        next token and frees the reader for the next request."""
        loop = asyncio.get_running_loop()
        items: asyncio.Queue = asyncio.Queue()
        stop = threading.Event()

        def put(item) -> None:
            loop.call_soon_threadsafe(items.put_nowait, item)

        def work() -> None:
            try:
                if stop.is_set():  # gone while waiting for its turn
                    return
                for event in ask(stop.is_set):
                    put(event)
                    if stop.is_set():
                        return
            except BaseException as exc:  # handed over: the request turns it into its error
                put(exc)
            finally:
                put(_DONE)

        self.waiting += 1
        loop.run_in_executor(self._executor, work)
        try:
            while True:
                try:
                    item = await asyncio.wait_for(items.get(), POLL_SECONDS)
                except asyncio.TimeoutError:
                    if disconnected is not None and await disconnected():
                        return
                    continue
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            self.waiting -= 1

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
