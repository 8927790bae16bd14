"""What every request passes before a route sees it (one ASGI layer, so that streaming and
disconnects reach the routes untouched): the Host header names this server (a web page that
rebinds its own name to 127.0.0.1 is refused), a browser page's Origin is this server's or one
allowed with --cors-origin (CORS), the API key when one is set, and the body's size and time."""
from __future__ import annotations

import asyncio
import hmac
import re
import time
from dataclasses import dataclass

from .api_errors import ApiError, error_bytes

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
CORS_METHODS = "GET, POST, DELETE, OPTIONS"
KEYED_PATHS = ("/v1", "/mcp")  # /health stays open: it says only that the server runs
CORS_HEADERS = "authorization, content-type, mcp-session-id, mcp-protocol-version"


@dataclass(frozen=True)
class Policy:
    """Who may ask: the host names the server answers to (with its port, or none), the browser
    origins allowed (CORS), the API key; the body's bounds."""

    hosts: frozenset[str] = frozenset(LOOPBACK_NAMES)
    port: int | None = None  # None: any port (a test server on a free one)
    origins: frozenset[str] = frozenset()
    api_key: str | None = None
    max_body: int = 4 * 1024 * 1024
    body_seconds: float = 30.0

    def names(self) -> str:
        return ", ".join(sorted(f"{h}:{self.port}" if self.port else h for h in self.hosts))

    def allows_host(self, host: str) -> bool:
        name, port = _split_host(host)
        return name in self.hosts and (port is None or self.port is None or port == self.port)


def host_names(bind: str, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The names this server answers to: the loopback names, the bound name (an IPv6 address in
    brackets, as a Host header writes it) and any other given."""
    names = set(LOOPBACK_NAMES) | {n.lower() for n in extra if n}
    if bind and bind not in ("0.0.0.0", "::"):
        names.add(f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind.lower())
    return frozenset(names)


def _split_host(host: str) -> tuple[str, int | None]:
    """("name", port) of a Host header; an IPv6 address keeps its brackets."""
    found = re.fullmatch(r"(\[[0-9a-f:.]+\]|[^:\[\]]+)(?::(\d{1,5}))?", host.strip().lower())
    if not found:
        return "", None
    return found.group(1).rstrip("."), int(found.group(2)) if found.group(2) else None


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


class Guards:
    """The ASGI layer in front of the FastAPI app."""

    def __init__(self, app, policy: Policy):
        self.app, self.policy = app, policy

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        try:
            origin = self._check(scope)
        except ApiError as refusal:
            return await _refuse(send, refusal)
        if scope["method"] == "OPTIONS" and origin and _header(scope, b"access-control-request-method"):
            return await _preflight(send, origin, _header(scope, b"access-control-request-headers"))
        if self.policy.api_key and scope["path"].startswith(KEYED_PATHS) and not self._key_ok(scope):
            return await _refuse(send, ApiError(401, "a valid API key is required (Authorization: Bearer KEY)",
                                                "invalid_api_key"))
        length = _header(scope, b"content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > self.policy.max_body):
            return await _refuse(send, ApiError(413, f"the body is larger than this server takes "
                                                     f"({self.policy.max_body} bytes)", "body_too_large"))
        await self.app(scope, self._bounded(receive), _with_cors(send, origin) if origin else send)

    def _check(self, scope) -> str | None:
        """The request's Origin when it is allowed to read answers (CORS); refusals raised."""
        host = (_header(scope, b"host") or "").strip().lower()
        if not self.policy.allows_host(host):
            raise ApiError(421, f"this server answers only to requests for {self.policy.names()} (the Host "
                                "header names another server: refused, as a web page's rebound name would be); "
                                "start it with --host NAME to answer to another name", "misdirected_request",
                           param="Host")
        origin = _header(scope, b"origin")
        if origin is None:  # not a web page: a program, the CLI
            return None
        if origin in self.policy.origins or "*" in self.policy.origins:
            return origin
        if origin.lower() in (f"http://{host}", f"https://{host}"):  # a page of this server itself
            return None
        raise ApiError(403, "requests from web pages of other sites are refused; allow one with "
                            "`assistant serve --cors-origin ORIGIN`", "origin_not_allowed", param="Origin")

    def _key_ok(self, scope) -> bool:
        given = (_header(scope, b"authorization") or "").removeprefix("Bearer ").strip()
        return hmac.compare_digest(given.encode(), self.policy.api_key.encode())

    def _bounded(self, receive):
        """receive(), with the body's size and time bounded: past either, a 413 or 408 JSON error
        (the route's exception handlers write it) and the connection closed."""
        deadline = time.monotonic() + self.policy.body_seconds
        state = {"read": 0, "done": False}

        async def bounded():
            if state["done"]:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                raise ApiError(408, f"the body did not arrive within {self.policy.body_seconds:g} s",
                               "request_timeout", headers={"Connection": "close"}) from None
            if message["type"] == "http.request":
                state["read"] += len(message.get("body", b""))
                if state["read"] > self.policy.max_body:
                    raise ApiError(413, f"the body is larger than this server takes ({self.policy.max_body} bytes)",
                                   "body_too_large", headers={"Connection": "close"})
                state["done"] = not message.get("more_body", False)
            return message

        return bounded


async def _refuse(send, refusal: ApiError) -> None:
    body = error_bytes(refusal.status, refusal.message, refusal.code, refusal.param)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    headers += [(k.lower().encode(), str(v).encode()) for k, v in refusal.headers.items()]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _preflight(send, origin: str, wanted: str | None) -> None:
    headers = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin"),
               (b"access-control-allow-methods", CORS_METHODS.encode()),
               (b"access-control-allow-headers", (wanted or CORS_HEADERS).encode("latin-1")),
               (b"access-control-max-age", b"600"), (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


def _with_cors(send, origin: str):
    async def sending(message):
        if message["type"] == "http.response.start":
            message = dict(message, headers=[*message.get("headers", []),
                                             (b"access-control-allow-origin", origin.encode("latin-1")),
                                             (b"access-control-expose-headers", b"mcp-session-id"),
                                             (b"vary", b"Origin")])
        await send(message)

    return sending
