"""A running server, found from its file, asked for a question's events: how `assistant ask`
and `chat` skip the model loads."""
from __future__ import annotations

import json
from typing import Iterator

from assistant.event_json import event_from_dict
from assistant.events import Event
from models.config import Settings
from models.errors import AssistantError

from .run import server_file


def running_server(settings: Settings) -> str | None:
    """The URL of a server over the same index that answers /health, or None."""
    import httpx

    path = server_file(settings)
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if found.get("index") != str(settings.index_path):
            return None
        httpx.get(found["url"] + "/health", timeout=1.0).raise_for_status()
        return found["url"]
    except (OSError, ValueError, KeyError, httpx.HTTPError):
        return None


def ask(url: str, question: str, spec: str, thread: str | None = None) -> Iterator[Event]:
    """The question's events from the server at url, the Answer last."""
    import httpx

    body = {"question": question, "model": spec, "thread": thread}
    try:
        with httpx.stream("POST", f"{url}/v1/events", json=body, timeout=httpx.Timeout(10.0, read=None)) as reply:
            if reply.status_code >= 400:
                reply.read()
                raise AssistantError(f"the server said: {reply.json()['error']['message']}")
            for line in reply.iter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                data = json.loads(line[6:])
                if data.get("type") == "error":
                    raise AssistantError(data["message"])
                yield event_from_dict(data)
    except httpx.HTTPError as exc:
        raise AssistantError(f"the server at {url} stopped answering ({exc}); ask again with --local") from None
