"""`assistant tui`: the full-screen app."""
from __future__ import annotations

import typer

tui_app = typer.Typer()  # mounted by main.py


def open_app() -> None:
    try:
        from tui.app import run_app
    except ImportError:
        from models.errors import AssistantError

        raise AssistantError("the full-screen app is not available yet; use `assistant ask`") from None
    run_app()


@tui_app.command("tui")
def tui_command() -> None:
    """Open the full-screen app (same as running `assistant` with no command)."""
    open_app()
