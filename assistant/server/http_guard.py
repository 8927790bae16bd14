"""The HTTP connection itself, below the app (uvicorn's h11 protocol, bounded): a request's headers
must arrive within a deadline (a sender trickling one byte at a time is closed), so must its body
(one shorter than its Content-Length is closed), an idle connection is closed, and the 400 that
uvicorn writes for a request that is not HTTP is JSON like every other error."""
from __future__ import annotations

from dataclasses import dataclass

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .api_errors import error_bytes


@dataclass(frozen=True)
class Limits:
    """Seconds for a request's headers, its body and an idle connection; the largest body."""

    header_seconds: float = 10.0
    body_seconds: float = 30.0
    idle_seconds: float = 5.0
    max_body: int = 4 * 1024 * 1024
    grace_seconds: float = 1.0  # the app's own 408 comes first; this closes what it cannot see


def _raw_error(status: int, reason: str, message: str, code: str) -> bytes:
    body = error_bytes(status, message, code)
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode("ascii") + body


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines for each request's headers and body."""

    limits = Limits()

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._header_timer = self._body_timer = None
        self._heard = False  # bytes of the next request have come
        self._arm_headers()

    def connection_lost(self, exc) -> None:
        self._cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._heard = True
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def send_400_response(self, msg: str) -> None:
        body = error_bytes(400, f"not a valid HTTP request ({msg.rstrip('.')})", "bad_http_request")
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request")))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()

    # -- deadlines -------------------------------------------------------------------------
    def _follow(self) -> None:
        """Move the deadlines along with the client's side of the connection."""
        if self.transport.is_closing():
            return self._cancel()
        state = self.conn.their_state
        if state is h11.IDLE:
            if self._header_timer is None:
                self._heard = False
                self._arm_headers()
        elif state is h11.SEND_BODY:
            self._cancel_headers()
            if self._body_timer is None:
                seconds = self.limits.body_seconds + self.limits.grace_seconds
                self._body_timer = self.loop.call_later(seconds, self._body_late)
        else:  # the request is all in (or the connection is ending)
            self._cancel()

    def _arm_headers(self) -> None:
        self._header_timer = self.loop.call_later(self.limits.header_seconds, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self._heard and (self.cycle is None or self.cycle.response_complete):
            self.transport.write(_raw_error(408, "Request Timeout", f"the request's headers did not arrive within "
                                            f"{self.limits.header_seconds:g} s", "request_timeout"))
        self.transport.close()  # an idle connection: closed without a word

    def _body_late(self) -> None:
        self._body_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
            return
        if self.cycle is not None and not self.cycle.response_started:
            self.transport.write(_raw_error(408, "Request Timeout", f"the body did not arrive within "
                                            f"{self.limits.body_seconds:g} s", "request_timeout"))
        self.transport.close()

    def _cancel_headers(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _cancel(self) -> None:
        self._cancel_headers()
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None


def bounded_protocol(limits: Limits) -> type[BoundedH11Protocol]:
    """The protocol class uvicorn builds for each connection, with these limits."""
    return type("BoundedH11Protocol", (BoundedH11Protocol,), {"limits": limits})


def uvicorn_config(app, host: str, port: int, limits: Limits = Limits(), log_level: str = "warning"):
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=log_level, http=bounded_protocol(limits),
                          timeout_keep_alive=max(1, round(limits.idle_seconds)), lifespan="on",
                          h11_max_incomplete_event_size=64 * 1024)
