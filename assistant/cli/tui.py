"""`assistant tui`: the full-screen app."""
from __future__ import annotations

from typing import Optional

import typer

tui_app = typer.Typer()  # mounted by main.py


def open_app(thread: str | None = None) -> None:
    try:
        from tui.app import run_app
    except ImportError:
        from models.errors import AssistantError

        raise AssistantError("the full-screen app is not available yet; use `assistant ask`") from None
    run_app(thread=thread)


@tui_app.command("tui")
def tui_command(thread: Optional[str] = typer.Option(
        None, "--thread", "-t", help="Hold a conversation: follow-ups understood, saved after each answer "
                                     "and reopened next time (F6 exports it as Markdown).")) -> None:
    """Open the full-screen app (same as running `assistant` with no command)."""
    if thread is not None:
        from ..threads import checked_name

        checked_name(thread)
    open_app(thread)
