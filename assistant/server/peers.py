"""Who is asking: a client on this machine (a loopback peer) sees where each cited file lies here;
one on another machine sees each source by its own name, not this machine's folders."""
from __future__ import annotations

import ipaddress

from assistant.services.search import source_label


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_local(request) -> bool:
    """Whether a request (Starlette's) comes from this machine."""
    peer = request.client.host if request.client else ""
    return bool(peer) and is_loopback(peer)


def scrubbed_event(data: dict) -> dict:
    """An event's JSON with every passage's source cut to its own name (passages, citations and
    the closest passages of an Answer)."""
    out = dict(data)
    for key in ("passages", "citations", "closest"):
        if isinstance(out.get(key), list):
            out[key] = [dict(p, source=source_label(p.get("source") or "")) if isinstance(p, dict) else p
                        for p in out[key]]
    return out
