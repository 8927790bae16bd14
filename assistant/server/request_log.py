"""One line per request on stderr when its response ends: method, path, status and seconds
(`POST /v1/chat/completions 200 3.21s`), so that whoever runs `assistant serve` sees who asked
what and how long it took. A pure ASGI layer: streamed answers pass through untouched, timed to
their last chunk. `assistant serve --quiet` leaves it out."""
from __future__ import annotations

import sys
import time
from typing import TextIO


def log_line(method: str, path: str, status: int | None, seconds: float) -> str:
    """A request as the log writes it; a response that never started (the client left) is `-`. The
    path with control and non-ASCII characters escaped: a request cannot write lines of its own."""
    path = path.encode("unicode_escape").decode("ascii").replace(" ", "%20")
    return f"{method} {path} {status if status is not None else '-'} {seconds:.2f}s"


class RequestLog:
    def __init__(self, app, stream: TextIO | None = None):
        self.app, self.stream = app, stream

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started, status = time.perf_counter(), None

        async def noting_status(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting_status)
        finally:
            stream = self.stream or sys.stderr  # looked up now: a test may have replaced it
            print(log_line(scope.get("method", "?"), scope.get("path", "?"), status,
                           time.perf_counter() - started), file=stream, flush=True)
