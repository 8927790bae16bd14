"""Byte counts as people read them (the CLI's index status and model list, the app's progress)."""
from __future__ import annotations


def human_size(n: float) -> str:
    """1536 -> "1.5 KB"; whole bytes below 1 KB; GB is the largest unit."""
    if n < 1024:
        return f"{n:.0f} B"
    for unit in ("KB", "MB"):
        n /= 1024
        if n < 1024:
            return f"{n:.1f} {unit}"
    return f"{n / 1024:.1f} GB"
