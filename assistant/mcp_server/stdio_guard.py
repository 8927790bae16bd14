"""`assistant mcp` over stdio, every line answered. The SDK's stdio transport drops a line it
cannot validate without a reply, and a client waits for it for ever: a line that is not JSON, a
request whose method is not a string, a string holding a lone surrogate ("\\ud800"). Here such a
line gets a JSON-RPC error instead (-32700 when it is not JSON, as /mcp over HTTP answers;
-32600 otherwise, with the request's id when it has one; an id that is no string or whole
number, which the SDK would take for a notification's, too) and the server goes on; every
other line reaches the SDK as it came. Blank lines are skipped."""
from __future__ import annotations

import json
import os
from io import TextIOWrapper

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def refusal(line: str) -> dict | None:
    """The JSON-RPC error that answers `line` in the server's place; None when the SDK takes it."""
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        request_id = None
        if isinstance(message, dict) and "id" in message:  # the SDK would take it for a notification
            return _error(None, INVALID_REQUEST, "Invalid request: an id must be a string or a whole number")
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError:
        pass
    why = ("a string in it is not UTF-8 text (a lone surrogate)" if not _utf8(message) else
           'not a JSON-RPC 2.0 message ("jsonrpc": "2.0", a string "method", "params" an object)')
    return _error(request_id, INVALID_REQUEST, f"Invalid request: {why}")


def _error(request_id, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _utf8(value) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class LineWriter:
    """The wire's stdout: one line per write, never two at once (the SDK's replies and ours)."""

    def __init__(self, stdout):
        import anyio

        self.stdout, self.lock = stdout, anyio.Lock()

    async def write(self, text: str) -> None:
        async with self.lock:
            await self.stdout.write(text)
            await self.stdout.flush()

    async def flush(self) -> None:
        pass  # each write flushed its line


class ScreenedLines:
    """The wire's stdin as the SDK reads it (`async for line in ...`), without the lines that
    are answered here."""

    def __init__(self, stdin, out: LineWriter):
        self.lines, self.out = stdin.__aiter__(), out

    def __aiter__(self):
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.lines.__anext__()  # StopAsyncIteration at the end of input
            if not line.strip():
                continue
            error = refusal(line)
            if error is None:
                return line
            await self.out.write(json.dumps(error) + "\n")


def _wire():
    """Private duplicates of fd 0 and 1 for the protocol; fd 0 then reads nothing and fd 1
    writes to stderr, so a stray print misses the wire (as the SDK's own stdio does)."""
    wire_in, wire_out = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def serve(server) -> None:
    """Serve the MCPServer on stdin/stdout until the client closes them."""
    import anyio
    from mcp.server.stdio import stdio_server

    async def main():
        wire_in, wire_out = _wire()
        out = LineWriter(anyio.wrap_file(TextIOWrapper(wire_out, encoding="utf-8")))
        lines = ScreenedLines(anyio.wrap_file(TextIOWrapper(wire_in, encoding="utf-8", errors="replace")), out)
        async with stdio_server(stdin=lines, stdout=out) as (read, write):
            # MCPServer.run_stdio_async does the same over the SDK's own, unscreened streams
            lowlevel = server._lowlevel_server
            await lowlevel.run(read, write, lowlevel.create_initialization_options())

    anyio.run(main)
