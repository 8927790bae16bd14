"""Sweep group `serve` (issues 52 and 54): `assistant serve` on 127.0.0.1 under hostile clients.
A foreign Host header, a lone surrogate, fields of the wrong type or range, fields it cannot serve,
an unknown model: each a JSON error naming what is wrong. A body shorter than its Content-Length,
a huge Content-Length and headers trickled a byte at a time: closed within the server's timeouts
while another client is answered. A clean stop (SIGTERM) removes server.json."""
from __future__ import annotations

import json
import signal
import socket
import time

import httpx
from world import Sweep, base_index

GROUP = "serve"
TIMEOUTS = ("--header-timeout", "3", "--body-timeout", "3", "--idle-timeout", "2")
CLOSED_WITHIN = 15.0  # seconds: the timeouts above, plus a busy machine's slack


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def counted(sweep: Sweep) -> None:
    sweep.tally.tried += 1
    sweep.tally.per_group[GROUP] += 1


def json_error(sweep: Sweep, name: str, response: httpx.Response, status: int, param: str | None = None) -> None:
    """The response is OpenAI's JSON error object with this status (and `param`, when given)."""
    counted(sweep)
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        sweep.fail(GROUP, name, "check", f"{response.status_code}, not a JSON error: {response.text[:80]!r}")
        return
    if response.status_code != status:
        sweep.fail(GROUP, name, "check", f"status {response.status_code}, expected {status}: {error}")
    elif param is not None and error.get("param") != param:
        sweep.fail(GROUP, name, "check", f"param {error.get('param')!r}, expected {param!r}")


def chat(message, **fields) -> dict:
    return {"model": "rag", "messages": [{"role": "user", "content": message}], **fields}


def field_cases(sweep: Sweep, base: str) -> None:
    with httpx.Client(base_url=base, timeout=120) as client:
        json_error(sweep, "foreign Host header", client.get("/v1/models", headers={"Host": "evil.example"}), 421)
        body = json.dumps(chat("x")).replace('"x"', '"\\ud800"')  # a lone surrogate, as JSON allows
        json_error(sweep, "lone surrogate", client.post("/v1/chat/completions", content=body,
                                                        headers={"content-type": "application/json"}), 400)
        json_error(sweep, "stream given as a string", client.post("/v1/chat/completions", json=chat("x", stream="yes")),
                   400, "stream")
        json_error(sweep, "negative max_tokens", client.post("/v1/chat/completions", json=chat("x", max_tokens=-5)),
                   400, "max_tokens")
        json_error(sweep, "n above 1", client.post("/v1/chat/completions", json=chat("x", n=2)), 400, "n")
        tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
        json_error(sweep, "tools offered", client.post("/v1/chat/completions", json=chat("x", tools=tools)), 400, "tools")
        json_error(sweep, "unknown model", client.get("/v1/models/no-such-model"), 404)
        json_error(sweep, "not JSON", client.post("/v1/chat/completions", content=b"{not json",
                                                  headers={"content-type": "application/json"}), 400)


def stalled_socket(sweep: Sweep, port: int, name: str, payload: bytes, trickle: bool = False) -> None:
    """The server closes (or answers and closes) a stalled connection within CLOSED_WITHIN, and
    answers /health meanwhile."""
    counted(sweep)
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=CLOSED_WITHIN + 5) as conn:
        if trickle:  # one byte a second, never finishing the headers
            try:
                for byte in payload:
                    conn.send(bytes([byte]))
                    time.sleep(1.0)
                    if time.monotonic() - started > CLOSED_WITHIN:
                        break
            except OSError:
                pass  # closed by the server: what is wanted
        else:
            conn.sendall(payload)
        try:
            health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=30).status_code
        except httpx.HTTPError as exc:
            health = str(exc)
        try:
            while conn.recv(4096):
                pass
        except OSError:
            pass
    waited = time.monotonic() - started
    if waited > CLOSED_WITHIN + (len(payload) if trickle else 0):
        sweep.fail(GROUP, name, "hang", f"open {waited:.0f}s")
    if health != 200:
        sweep.fail(GROUP, name, "check", f"/health meanwhile: {health}")


def socket_cases(sweep: Sweep, port: int) -> None:
    head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    stalled_socket(sweep, port, "body shorter than its Content-Length",
                   (head + "Content-Length: 500\r\n\r\n{\"model\":").encode())
    stalled_socket(sweep, port, "huge Content-Length", (head + "Content-Length: 99999999999\r\n\r\n{").encode())
    stalled_socket(sweep, port, "headers trickled a byte at a time", head.encode() * 3, trickle=True)


def serve_group(sweep: Sweep) -> None:
    index = base_index(sweep)
    port = free_port()
    proc = sweep.popen("serve", "--port", port, "--index", index, *TIMEOUTS)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(1)
    else:
        proc.kill()
        sweep.fail(GROUP, "start", "hang", "serve did not answer /health in 300 s")
        return
    try:
        field_cases(sweep, base)
        socket_cases(sweep, port)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except Exception:  # noqa: BLE001  (a stop that hangs is the failure said below)
            proc.kill()
    counted(sweep)
    if list((sweep.root / "data").rglob("server.json")):
        sweep.fail(GROUP, "clean stop", "check", "server.json left behind after SIGTERM")


GROUPS = {"serve": serve_group}
