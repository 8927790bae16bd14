"""`assistant serve`'s app on 127.0.0.1 at a free port, in a thread, over fake models, with the
same guards and connection limits as `assistant serve` (ServeOptions)."""
from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

from models.config import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(context_factory, data_dir, api_key: str | None = None, searcher=None, **options):
    """The base URL of a running server; stopped when the block ends. options: ServeOptions
    fields (queue_size, cors_origins, header_seconds...)."""
    from assistant.server.run import ServeOptions, build

    settings = Settings(data_dir=data_dir)
    port = free_port()
    extra = {"searcher": searcher} if searcher is not None else {}
    options = {"request_log": False, **options}  # a line per request only where a test reads them
    server = build(settings, "127.0.0.1", port, api_key, ServeOptions(**options), preload=False,
                   context_factory=context_factory, **extra)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
