"""Events back from their JSON (`--json` lines, recorded traces): the inverse of Event.to_dict."""
from __future__ import annotations

from . import details  # noqa: F401  (registers the detail kinds)
from .core import DETAIL_BASE_FIELDS, DETAIL_KINDS, EVENT_TYPES, Answer, Detail, Event, Passage


def event_from_dict(data: dict) -> Event:
    """Inverse of Event.to_dict (for tests, recorded traces and the TUI)."""
    data = dict(data)
    cls = EVENT_TYPES[data.pop("type")]
    if cls is Detail:
        base = {name: data[name] for name in DETAIL_BASE_FIELDS if name in data}
        return DETAIL_KINDS[data["kind"]].from_data(base, data.get("data", {}))
    if "passages" in data:  # whole passages (Retrieved), or their ids (Reading)
        data["passages"] = [Passage(**p) if isinstance(p, dict) else p for p in data["passages"]]
    if cls is Answer:
        data["citations"] = [Passage(**p) for p in data.get("citations", [])]
        data["closest"] = [Passage(**p) for p in data.get("closest", [])]
    return cls(**data)
