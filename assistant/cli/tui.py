"""`assistant tui`: the full-screen app."""
from __future__ import annotations

from .main import app


def open_app() -> None:
    try:
        from tui.app import run_app
    except ImportError:
        from models.errors import AssistantError

        raise AssistantError("the full-screen app is not available yet; use `assistant ask`") from None
    run_app()


@app.command("tui")
def tui_command() -> None:
    """Open the full-screen app (same as running `assistant` with no command)."""
    open_app()
