"""A stand-in for the Hugging Face hub on 127.0.0.1, for `models pull` tests (HF_ENDPOINT points here).

Answers what huggingface_hub asks: HEAD and GET `/{owner}/{repo}/resolve/{revision}/{file}` with
X-Repo-Commit, X-Linked-Etag (the SHA-256 the hub records for LFS files), X-Linked-Size, ETag and
Content-Length, and GET with `Range: bytes=N-` (206). Each request is logged. Faults on demand:
`cut_at` closes the connection after that many bytes of the first full GET; `stall_at` stops
sending there until `release` is set; `recorded_sha256` can differ from what is served.
"""
from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "a" * 40


@dataclass
class HubFile:
    data: bytes
    recorded_sha256: str = ""  # default: the real hash of data

    def __post_init__(self):
        self.recorded_sha256 = self.recorded_sha256 or hashlib.sha256(self.data).hexdigest()


@dataclass
class FakeHub:
    files: dict[str, HubFile] = field(default_factory=dict)  # "owner/repo/file" -> file
    cut_at: int | None = None
    stall_at: int | None = None
    release: threading.Event = field(default_factory=threading.Event)
    log: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, Range header)
    sent: int = 0  # body bytes sent, all requests
    url: str = ""

    def ranges(self) -> list[str]:
        return [r for method, _, r in self.log if method == "GET" and r]


def _handler(hub: FakeHub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def _file(self):
            match = re.match(r"^/([^/]+/[^/]+)/resolve/[^/]+/(.+)$", self.path)
            return hub.files.get(f"{match.group(1)}/{match.group(2)}") if match else None

        def _headers(self, f: HubFile, status: int, start: int = 0):
            self.send_response(status)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("X-Linked-Etag", f'"{f.recorded_sha256}"')
            self.send_header("X-Linked-Size", str(len(f.data)))
            self.send_header("ETag", f'"{f.recorded_sha256}"')
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(len(f.data) - start))
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{len(f.data) - 1}/{len(f.data)}")
            self.end_headers()

        def do_HEAD(self):
            hub.log.append(("HEAD", self.path, ""))
            f = self._file()
            if f is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self._headers(f, 200)

        def do_GET(self):
            wanted = self.headers.get("Range", "")
            hub.log.append(("GET", self.path, wanted))
            f = self._file()
            if f is None:
                self.send_error(404)
                return
            start = int(re.match(r"bytes=(\d+)-", wanted).group(1)) if wanted else 0
            self._headers(f, 206 if wanted else 200, start)
            first_full_get = not wanted and sum(1 for m, _, r in hub.log if m == "GET" and not r) == 1
            position = start
            while position < len(f.data):
                end = min(position + 65536, len(f.data))
                if first_full_get and hub.cut_at is not None and end > hub.cut_at:
                    self._send(f.data[position:hub.cut_at])
                    self.close_connection = True
                    self.connection.shutdown(2)  # the drop: the client saw fewer bytes than promised
                    return
                if hub.stall_at is not None and end > hub.stall_at and position <= hub.stall_at:
                    self._send(f.data[position:hub.stall_at])
                    position = hub.stall_at
                    hub.release.wait(30)
                    return
                self._send(f.data[position:end])
                position = end

        def _send(self, chunk: bytes):
            self.wfile.write(chunk)
            self.wfile.flush()
            hub.sent += len(chunk)

    return Handler


def start(hub: FakeHub) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))  # only ever the loopback address
    server.daemon_threads = True
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
