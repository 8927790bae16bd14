"""A running server, found from its file, asked for a question's events: how `assistant ask`
and `chat` skip the model loads (and `assistant search` the index's imports)."""
from __future__ import annotations

import http.client
import json
from typing import Iterator
from urllib.parse import urlsplit

from assistant.events.event_json import event_from_dict
from assistant.events.core import Event
from models.config import Settings
from models.errors import AssistantError

from .run import server_file

# The standard library's client, not httpx: a warm ask's whole start is the CLI's, and importing
# httpx costs more (0.1-0.2 s) than the round trip to a server on this machine.
CONNECT_SECONDS = 10.0


def _connection(url: str, timeout: float) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"not a server URL: {url}")
    return http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)


def running_server(settings: Settings) -> str | None:
    """The URL of a server over the same index that answers /health, or None."""
    path = server_file(settings)
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if found.get("index") != str(settings.index_path):
            return None
        connection = _connection(found["url"], timeout=1.0)
        try:
            connection.request("GET", "/health")
            if connection.getresponse().status != 200:
                return None
        finally:
            connection.close()
        return found["url"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, http.client.HTTPException):
        return None


def ask(url: str, question: str, spec: str, thread: str | None = None,
        collection: str | None = None) -> Iterator[Event]:
    """The question's events from the server at url, the Answer last (searching only
    `collection` when given)."""
    body = json.dumps({"question": question, "model": spec, "thread": thread,
                       "collection": collection}).encode("utf-8")
    try:
        connection = _connection(url, timeout=CONNECT_SECONDS)
        try:
            connection.request("POST", "/v1/events", body=body, headers={"Content-Type": "application/json"})
            reply = connection.getresponse()
            connection.sock.settimeout(None)  # an answer may take minutes: no read timeout
            if reply.status >= 400:
                raise AssistantError(f"the server said: {json.loads(reply.read())['error']['message']}")
            for raw in reply:  # server-sent events, one "data: ..." line each
                line = raw.decode("utf-8").rstrip("\r\n")
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                data = json.loads(line[6:])
                if data.get("type") == "error":
                    raise AssistantError(data["message"])
                yield event_from_dict(data)
        finally:
            connection.close()
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise AssistantError(f"the server at {url} stopped answering ({exc}); ask again with --local") from None


def search(url: str, query: str, k: int, collection: str | None = None) -> list[dict]:
    """The server's /v1/search rows (assistant/search_service.Hit as a dict): the same search
    without importing LanceDB in this process."""
    body = json.dumps({"query": query, "k": k, "collection": collection}).encode("utf-8")
    try:
        connection = _connection(url, timeout=CONNECT_SECONDS)
        try:
            connection.request("POST", "/v1/search", body=body, headers={"Content-Type": "application/json"})
            reply = connection.getresponse()
            data = json.loads(reply.read())
        finally:
            connection.close()
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise AssistantError(f"the server at {url} stopped answering ({exc}); search again with --local") from None
    if reply.status >= 400:
        raise AssistantError(data.get("error", {}).get("message", f"the server said {reply.status}"))
    return data["data"]
