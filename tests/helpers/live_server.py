"""`assistant serve`'s app on 127.0.0.1 at a free port, in a thread, over fake models."""
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
def live_server(context_factory, data_dir, api_key: str | None = None):
    """The base URL of a running server; stopped when the block ends."""
    import uvicorn

    from assistant.server.app import create_app

    settings = Settings(data_dir=data_dir)
    app = create_app(settings, api_key=api_key, context_factory=context_factory, preload=False)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
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
