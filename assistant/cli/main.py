"""Entry point: registers the command groups and turns every failure into one clear line."""
from __future__ import annotations

import os
import sys

import typer

from models.errors import AssistantError

app = typer.Typer(
    help="Offline question answering over your documents with local models.\n\n"
         "Run with no command to open the full-screen app.",
    no_args_is_help=False, invoke_without_command=True, pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        from .tui import open_app

        open_app()


def _register() -> None:
    from . import ask, index, tui  # noqa: F401  (each adds its commands to `app`)
    for optional in ("evaluate", "models", "judge"):
        try:
            __import__(f"{__package__}.{optional}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{optional}":
                raise


def run() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        app()
    except AssistantError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:  # the last line of defence: never a traceback for the user
        if os.environ.get("ASSISTANT_DEBUG"):
            raise
        first = (str(exc).splitlines() or [""])[0]
        print(f"error: unexpected {type(exc).__name__}: {first} (set ASSISTANT_DEBUG=1 for details)",
              file=sys.stderr)
        sys.exit(70)


_register()
