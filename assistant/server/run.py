"""Starting the server (uvicorn), refusing a bind off loopback without an API key, and the file
that tells `assistant ask` and `chat` where a running server listens."""
from __future__ import annotations

import ipaddress
import json
import os
import socket
from pathlib import Path

from models.config import Settings
from models.errors import AssistantError

SERVER_FILE = "server.json"  # in the data folder, while a server runs


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, port: int, api_key: str | None) -> None:
    if not is_loopback(host) and not api_key:
        raise AssistantError(f"serving on {host} lets other machines ask; give an API key with --api-key "
                             "(or ASSISTANT_API_KEY), or serve on 127.0.0.1")
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise AssistantError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                                 "is another server running? pick another --port") from None


def server_file(settings: Settings) -> Path:
    return Path(settings.data_dir) / SERVER_FILE


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8321, api_key: str | None = None,
          preload: bool = True, context_factory=None) -> None:
    """Run until interrupted; the server file names this one meanwhile (loopback only: a remote
    bind needs the key, which the file does not hold)."""
    import uvicorn

    from .app import create_app

    check_bind(host, port, api_key)
    app = create_app(settings, api_key, context_factory, preload)
    marker = server_file(settings)
    if is_loopback(host) and not api_key:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"url": f"http://{'127.0.0.1' if host == 'localhost' else host}:{port}",
                                      "pid": os.getpid(), "index": str(settings.index_path)}), encoding="utf-8")
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")).get("pid") == os.getpid():
            marker.unlink()
