"""Questions queued for the one reader: each runs on a single worker thread, its events handed
to the request's async code as they come; a request that goes away stops its question. The queue
is bounded: a request past its size is refused at once (429, with a Retry-After)."""
from __future__ import annotations

import asyncio
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import AsyncIterator, Awaitable, Callable, Iterator

from assistant.events.core import Event

from .api_errors import ApiError

_DONE = object()
POLL_SECONDS = 0.25  # how often a waiting request checks whether its client is still there
DEFAULT_SIZE = 10  # questions waiting or being answered
FIRST_GUESS_SECONDS = 10.0  # Retry-After before any question has been timed


class Place:
    """A request's place in the queue, taken before its response starts; given back once."""

    def __init__(self, queue: "ReaderQueue"):
        self._queue, self.held = queue, True

    def release(self) -> None:
        if self.held:
            self.held = False
            self._queue.waiting -= 1


class ReaderQueue:
    """One question at a time (the reader holds one context); later requests wait their turn,
    at most `size` of them in all."""

    def __init__(self, size: int = DEFAULT_SIZE):
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reader")
        self.size = size
        self.waiting = 0  # questions waiting or being answered
        self._seconds: list[float] = []  # the last questions' times, for Retry-After

    def run(self, fn: Callable[[], object]) -> Awaitable:
        """A plain call (a model preload) in the queue."""
        return asyncio.get_running_loop().run_in_executor(self._executor, fn)

    def retry_after(self) -> int:
        """Seconds until a place is likely free: one question's usual time."""
        recent = self._seconds[-10:]
        return max(1, math.ceil(sum(recent) / len(recent) if recent else FIRST_GUESS_SECONDS))

    def take_place(self) -> Place:
        """A place for one question, or a 429 when the queue is full."""
        if self.waiting >= self.size:
            wait = self.retry_after()
            raise ApiError(429, f"the server is busy: {self.waiting} questions are queued (its --queue-size); "
                                f"try again in about {wait} s", "queue_full", headers={"Retry-After": str(wait)})
        self.waiting += 1
        return Place(self)

    async def events(self, ask: Callable[[Callable[[], bool]], Iterator[Event]], place: Place | None = None,
                     disconnected: Callable[[], Awaitable[bool]] | None = None) -> AsyncIterator[Event]:
        """The events of ask(should_stop), run in the queue. Leaving the loop early (the client
        went: the response is cancelled, or `disconnected()` says so) stops the question at its
        next token and frees the reader for the next request."""
        place = place or self.take_place()
        loop = asyncio.get_running_loop()
        items: asyncio.Queue = asyncio.Queue()
        stop = threading.Event()

        def put(item) -> None:
            loop.call_soon_threadsafe(items.put_nowait, item)

        def work() -> None:
            started = time.perf_counter()
            try:
                if stop.is_set():  # gone while waiting for its turn
                    return
                for event in ask(stop.is_set):
                    put(event)
                    if stop.is_set():
                        return
                self._seconds = [*self._seconds[-9:], time.perf_counter() - started]
            except BaseException as exc:  # handed over: the request turns it into its error
                put(exc)
            finally:
                put(_DONE)

        loop.run_in_executor(self._executor, work)
        checked = time.monotonic()
        try:
            while True:
                try:
                    item = await asyncio.wait_for(items.get(), POLL_SECONDS)
                except asyncio.TimeoutError:
                    item = None
                if disconnected is not None and time.monotonic() - checked >= POLL_SECONDS:
                    checked = time.monotonic()  # also while tokens keep coming
                    if await disconnected():
                        return
                if item is None:
                    continue
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            place.release()

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
