"""`assistant serve` drops stalled sockets (issue 54), tried with raw sockets on 127.0.0.1: headers
trickled a byte at a time, a body shorter than its Content-Length, a huge Content-Length, an idle
connection; each closed by the server within its (short, here) timeout while other requests are
answered. Every error it writes is JSON, the HTTP-level 400 included; and the server file goes
when the server stops (Ctrl-C or a plain kill)."""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from helpers.fakes import FakeReader, make_context
from helpers.live_server import free_port, live_server

ROOT = Path(__file__).resolve().parents[2]
LIMITS = {"header_seconds": 1.0, "body_seconds": 1.0, "idle_seconds": 1.0}
WAIT = 10.0  # how long the test waits for the server to close: far beyond its 1 s


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    reader = FakeReader(lambda prompt: "It is the Harbor Clinic.")
    with live_server(lambda settings, strategy: make_context(reader=reader), tmp_path_factory.mktemp("timeouts"),
                     **LIMITS) as base:
        yield base


def connect(url) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])))
    sock.settimeout(WAIT)
    return sock


def read_all(sock) -> bytes:
    """What the server wrote until it closed the connection (a timeout here fails the test)."""
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def json_body(reply: bytes) -> dict:
    head, _, body = reply.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower(), head
    return json.loads(body)


def answered_meanwhile(url) -> bool:
    reply = httpx.post(url + "/v1/chat/completions", timeout=WAIT,
                       json={"model": "direct", "messages": [{"role": "user", "content": "What is it?"}]})
    return reply.status_code == 200 and reply.json()["choices"][0]["message"]["content"].startswith("It is")


def test_headers_trickled_a_byte_at_a_time_are_cut_off(url):
    sock = connect(url)
    request = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
    stop = threading.Event()

    def trickle():
        for byte in request:
            if stop.is_set():
                return
            try:
                sock.send(bytes([byte]))
            except OSError:
                return
            time.sleep(0.1)

    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        assert answered_meanwhile(url)
        reply = read_all(sock)  # returns once the server closes; 200 bytes would take 20 s
    finally:
        stop.set()
        sender.join()
        sock.close()
    assert reply.startswith(b"HTTP/1.1 408") and json_body(reply)["error"]["code"] == "request_timeout"


def test_a_body_shorter_than_its_content_length_is_cut_off(url):
    sock = connect(url)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 500\r\n\r\n{\"model\": \"direct\"")
    assert answered_meanwhile(url)
    reply = read_all(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 408") and json_body(reply)["error"]["code"] == "request_timeout"


def test_a_body_trickled_a_byte_at_a_time_is_cut_off(url):
    sock = connect(url)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 400\r\n\r\n")
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            try:
                sock.send(b" ")
            except OSError:
                return
            time.sleep(0.1)

    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        reply = read_all(sock)
    finally:
        stop.set()
        sender.join()
        sock.close()
    assert reply.startswith(b"HTTP/1.1 408")


def test_a_huge_content_length_is_refused_at_once(url):
    sock = connect(url)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 99999999999\r\n\r\n{")
    reply = read_all(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 413") and json_body(reply)["error"]["code"] == "body_too_large"


def test_an_idle_connection_is_closed(url):
    sock = connect(url)
    assert read_all(sock) == b""  # nothing said, nothing written: closed
    sock.close()


def test_a_kept_alive_connection_is_closed_once_idle(url):
    sock = connect(url)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    reply = read_all(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 200") and reply.count(b"HTTP/1.1") == 1


@pytest.mark.parametrize("raw", [b"NONSENSE\r\n\r\n", b"GET /health HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n",
                                 b"POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n"])
def test_a_request_that_is_not_http_gets_a_json_400(url, raw):
    sock = connect(url)
    sock.sendall(raw)
    reply = read_all(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 400") and json_body(reply)["error"]["code"] == "bad_http_request"


# -- the server file ------------------------------------------------------------------------------

SERVE = """
import sys
sys.path.insert(0, {tests!r})
from helpers.fakes import FakeReader, make_context
from assistant.server.run import serve
from models.config import Settings
serve(Settings(data_dir={data!r}), port={port}, preload=False,
      context_factory=lambda settings, strategy: make_context(reader=FakeReader()))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_server_file_goes_when_the_server_stops(tmp_path, sig):
    port = free_port()
    marker = tmp_path / "server.json"
    code = SERVE.format(tests=str(ROOT / "tests"), data=str(tmp_path), port=port)
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    server = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not marker.is_file() or not _answers(port):
            assert server.poll() is None and time.monotonic() < deadline, server.stderr.read() if server.poll() else ""
            time.sleep(0.1)
        assert json.loads(marker.read_text())["pid"] == server.pid
        server.send_signal(sig)
        server.wait(30)
    finally:
        if server.poll() is None:
            server.kill()
    assert not marker.exists(), "a stopped server left its file behind"


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False
