"""Entry point: registers the command groups and turns every failure into one clear line."""
from __future__ import annotations

import json
import os
import sys

import typer

from models.errors import AssistantError, Interrupted

from .help_style import install as plain_help

plain_help()

app = typer.Typer(
    help="Offline question answering over your documents with local models.\n\n"
         "Run with no command to open the full-screen app.",
    no_args_is_help=False, invoke_without_command=True, pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # click's plain help: no <bool>/<str> placeholders, wraps to the terminal
)


@app.callback()
def _root(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        from .tui import open_app

        open_app()


def _mount() -> None:
    """Each command module has its own Typer and imports nothing from here (no import circle)."""
    from .ask import ask_app
    from .chat import chat_app
    from .evaluate import eval_app
    from .index import index_app
    from .judge import judge_app
    from .mcp import mcp_app
    from .models import models_app
    from .open_source import open_app
    from .search import search_app
    from .serve import serve_app
    from .tui import tui_app

    for commands in (ask_app, chat_app, search_app, open_app, serve_app, mcp_app, eval_app, tui_app):  # single commands, at the top level
        app.add_typer(commands)
    app.add_typer(index_app, name="index")
    app.add_typer(models_app, name="models")
    app.add_typer(judge_app, name="judge")


def usage_error_line(exc: typer.TyperException) -> str:
    """A usage error (bad option value, missing argument, unknown option or command) as one line,
    naming the help of the command it was given to, instead of Typer's boxed usage message."""
    format_message = getattr(exc, "format_message", None)
    message = " ".join((format_message() if format_message else str(exc)).splitlines()).strip()
    ctx = getattr(exc, "ctx", None)
    if ctx is None:
        return f"error: {message}"
    names = []  # the command's own path: the program may have been started as `python -m assistant`
    while ctx.parent is not None:
        names.append(ctx.info_name)
        ctx = ctx.parent
    return f"error: {message} (see {' '.join(['assistant', *reversed(names)])} --help)"


def _report(line: str, code: int) -> None:
    """The one line that ends a failed or stopped command, on stderr; with --json also as a JSON
    object on stdout, so that a program reading the events gets JSON to the end."""
    if "--json" in sys.argv[1:]:
        kind = "interrupted" if code == 130 else "error"
        message = line.split(": ", 1)[1] if line.startswith(("error: ", "interrupted: ")) else line
        print(json.dumps({"type": kind, "message": message, "exit_code": code}, ensure_ascii=False), flush=True)
    print(line, file=sys.stderr)


def _exit_interrupted(line: str) -> None:
    """Exit 130 at once. The command's own clean-up has run (the index closed, its lock given
    back); what is left is the interpreter's teardown of the loaded models and libraries, about
    2 s on a laptop, which Ctrl-C should not wait for."""
    _report(line, 130)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def run() -> None:
    # Libraries stay off the network; `models pull` goes online unless the user set offline mode.
    os.environ.setdefault("ASSISTANT_USER_HF_HUB_OFFLINE", os.environ.get("HF_HUB_OFFLINE", ""))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        # Not standalone: usage errors come here instead of being printed in a box.
        code = app(standalone_mode=False)
    except typer.TyperException as exc:  # click's usage errors (exit 2) and the few others
        if type(exc).__name__ == "NoArgsIsHelpError":  # a group given no command: its help
            print(exc.format_message())
        else:
            _report(usage_error_line(exc), exc.exit_code)
        sys.exit(exc.exit_code)
    except typer.Abort:  # end of input at a prompt
        _report("aborted", 1)
        sys.exit(1)
    except Interrupted as exc:  # Ctrl-C, heard at a point where stopping keeps everything whole
        _exit_interrupted(f"interrupted: {exc}")
    except AssistantError as exc:
        _report(f"error: {exc}", 1)
        sys.exit(1)
    except KeyboardInterrupt:
        _exit_interrupted("interrupted")
    except Exception as exc:  # the last line of defence: never a traceback for the user
        if os.environ.get("ASSISTANT_DEBUG"):
            raise
        first = (str(exc).splitlines() or [""])[0]
        _report(f"error: unexpected {type(exc).__name__}: {first} (set ASSISTANT_DEBUG=1 for details)", 70)
        sys.exit(70)
    # Always an exit, as in click's standalone mode: --help and Ctrl-C return their code, a
    # command returns None.
    if code == 130:  # click turns a KeyboardInterrupt into exit code 130, silently
        _exit_interrupted("interrupted")
    sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)


_mount()
