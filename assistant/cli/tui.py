"""`assistant tui`: the full-screen app."""
from __future__ import annotations

import os
import sys
from typing import Optional

import typer

tui_app = typer.Typer()  # mounted by main.py


def _is_terminal(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):  # closed
        return False


def no_terminal_reason() -> str:
    """Why the app cannot draw here ("" when it can). Without a terminal (input from a file or
    /dev/null, output to a file) Textual never exits and writes screen codes into the output."""
    if not (_is_terminal(sys.stdin) and _is_terminal(sys.stdout)):
        return "the full-screen app needs a terminal (input or output is redirected)"
    if os.environ.get("TERM", "") == "dumb":
        return "the full-screen app needs a terminal that can draw screens (TERM=dumb)"
    return ""


def open_app(thread: str | None = None) -> None:
    reason = no_terminal_reason()
    if reason:
        typer.echo(f'error: {reason}; in scripts use `assistant ask "QUESTION"`', err=True)
        raise typer.Exit(2)
    try:
        from tui.app import run_app
    except ImportError:
        from models.errors import AssistantError

        raise AssistantError("the full-screen app is not available yet; use `assistant ask`") from None
    run_app(thread=thread)


@tui_app.command("tui")
def tui_command(thread: Optional[str] = typer.Option(
        None, "--thread", "-t", help="Open this conversation (default: the one open when the app last closed; "
                                     "Ctrl+N starts a new one, F7 lists them, F6 exports as Markdown).")) -> None:
    """Open the full-screen app (same as running `assistant` with no command)."""
    if thread is not None:
        from ..conversation.threads import checked_name

        checked_name(thread)
    open_app(thread)
