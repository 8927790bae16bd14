"""The one-time notice that the bundled reader is a demo, and how to get a real one.

SmolLM2-135M answers almost nothing right (EVALUATION.md, "Other strategies, and readers"); a new
user should hear that once, on first use of the CLI or the app, not find it out from wrong answers.
A marker file in the data dir remembers that it was said.
"""
from __future__ import annotations

from models.config import Settings

MARKER = "demo-reader-notice-shown"
NOTICE = ("Note: the bundled reader (SmolLM2-135M) is a small demo model and gets most answers wrong. "
          "For real answers pull a real reader, e.g. `assistant models pull qwen2.5-coder-1.5b` "
          "(see `assistant models list`). This note is shown once.")


def demo_reader_notice(settings: Settings) -> str | None:
    """The notice when the bundled demo reader is in use and it was not shown before; else None.
    Marks it shown (a data dir that cannot be written just shows it again next time)."""
    if settings.reader is not None:
        return None
    marker = settings.data_dir / MARKER
    if marker.exists():
        return None
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text("shown\n", encoding="utf-8")
    except OSError:
        pass
    return NOTICE
