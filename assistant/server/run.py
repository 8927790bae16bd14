"""Starting the server (uvicorn, with the connection limits of http_guard.py), refusing a bind off
loopback without an API key, and the file that tells `assistant ask` and `chat` where a running
server listens (removed again when the server stops, on Ctrl-C or a plain `kill`). One server per
data folder: a second is refused with a line that names the first, so that the file always names
the one that runs."""
from __future__ import annotations

import json
import os
import signal
import socket
from dataclasses import dataclass
from pathlib import Path

from models.config import Settings
from models.errors import AssistantError

from .peers import is_loopback

SERVER_FILE = "server.json"  # in the data folder, while a server runs


@dataclass(frozen=True)
class ServeOptions:
    """What `assistant serve` takes beyond host, port and key."""

    cors_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()  # more names the Host header may give (a proxy's, a LAN name)
    queue_size: int = 10
    header_seconds: float = 10.0
    body_seconds: float = 30.0
    idle_seconds: float = 5.0
    max_body: int = 4 * 1024 * 1024
    request_log: bool = True  # a line per request on stderr (`assistant serve --quiet`: none)


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


def check_origin(origin: str) -> str:
    """A --cors-origin value: scheme://host[:port] as a browser sends it, or *."""
    from urllib.parse import urlsplit

    parts = urlsplit(origin)
    if origin != "*" and (parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/")
                          or parts.query or parts.fragment):
        raise AssistantError(f"--cors-origin {origin!r} is not an origin; give scheme://host[:port], "
                             "e.g. http://localhost:3000")
    return origin.rstrip("/")


def served_names(host: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    """The names a Host header may give beyond loopback's: those given, and on a wildcard bind
    (0.0.0.0, ::) this machine's own names and addresses (a remote bind needs the API key too)."""
    names = list(extra)
    if host in ("0.0.0.0", "::"):  # host.docker.internal: how a container (Open WebUI's) names the host
        names += [socket.gethostname(), socket.getfqdn(), "host.docker.internal"]
        try:
            names += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)]
        except OSError:
            pass
    return tuple(f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names if n)


def server_file(settings: Settings) -> Path:
    return Path(settings.data_dir) / SERVER_FILE


def check_no_other_server(settings: Settings) -> None:
    """Refuse to start while the server file names another live process: two servers on one data
    folder would overwrite each other's file, and stopping one would leave the other unfound."""
    marker = server_file(settings)
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
        pid = int(record["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return  # none, or not readable as a record: nothing runs that it could name
    if pid != os.getpid() and _alive(pid):
        raise AssistantError(f"a server already runs on this data folder: {record.get('url', '?')} (process {pid}); "
                             f"stop it first, or give this one another ASSISTANT_DATA_DIR (if none runs, delete {marker})")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


def build(settings: Settings, host: str, port: int, api_key: str | None, options: ServeOptions,
          preload: bool = True, context_factory=None, **app_options):
    """The uvicorn server for this app, its guards and limits (app_options: create_app's others)."""
    import uvicorn

    from .app import create_app
    from .guards import Policy, host_names
    from .http_guard import Limits, uvicorn_config

    from .request_log import RequestLog

    policy = Policy(hosts=host_names(host, served_names(host, options.allowed_hosts)), port=port,
                    origins=frozenset(check_origin(o) for o in options.cors_origins), api_key=api_key,
                    max_body=options.max_body, body_seconds=options.body_seconds)
    app = create_app(settings, api_key, context_factory, preload, policy=policy, queue_size=options.queue_size,
                     **app_options)
    if options.request_log:
        app.add_middleware(RequestLog)  # the outermost layer: refused requests are logged too
    limits = Limits(header_seconds=options.header_seconds, body_seconds=options.body_seconds,
                    idle_seconds=options.idle_seconds, max_body=options.max_body)
    return uvicorn.Server(uvicorn_config(app, host, port, limits))


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8321, api_key: str | None = None,
          preload: bool = True, context_factory=None, options: ServeOptions = ServeOptions()) -> None:
    """Run until interrupted; the server file names this one meanwhile (loopback only: a remote
    bind needs the key, which the file does not hold)."""
    check_bind(host, port, api_key)
    check_no_other_server(settings)
    server = build(settings, host, port, api_key, options, preload, context_factory)
    marker = server_file(settings)
    if is_loopback(host) and not api_key:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"url": f"http://{'127.0.0.1' if host == 'localhost' else host}:{port}",
                                      "pid": os.getpid(), "index": str(settings.index_path)}), encoding="utf-8")
    # uvicorn stops gracefully on SIGTERM, then raises it again: with the default handler the
    # process would die there, before the server file is removed. Heard as an exit instead.
    previous = signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        server.run()
    finally:
        signal.signal(signal.SIGTERM, previous)
        remove_server_file(marker)


def _exit_on_term(_signum, _frame) -> None:
    raise SystemExit(0)


def remove_server_file(marker: Path) -> None:
    """The server file, removed when it names this process."""
    try:
        if json.loads(marker.read_text(encoding="utf-8")).get("pid") == os.getpid():
            marker.unlink()
    except (OSError, ValueError, AttributeError):
        pass
