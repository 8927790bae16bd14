"""`assistant chat [NAME]`: a conversation at a plain terminal prompt (follow-ups understood,
the thread saved after each answer); --list, --delete and --export manage the saved threads."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

chat_app = typer.Typer()  # mounted by main.py

HELP = ("Type a question, or: /export [FILE] (the thread as Markdown), /threads, /help, /quit. "
        "Up and down arrows recall earlier questions.")


@chat_app.command()
def chat(
    name: Optional[str] = typer.Argument(None, help="The thread to open or start (default: a new one)."),
    strategy: Optional[str] = typer.Option(None, "--strategy", "-s", help="direct, rag, default, ..."),
    list_threads: bool = typer.Option(False, "--list", help="List the saved threads and stop."),
    delete: bool = typer.Option(False, "--delete", help="Delete the thread NAME and stop."),
    export: Optional[Path] = typer.Option(None, "--export", help="Write the thread NAME as Markdown to this "
                                                                  "file ('-': print it) and stop."),
    trace: bool = typer.Option(False, "--trace", help="Print each step as it happens."),
    local: bool = typer.Option(False, "--local", help="Load the models here even when `assistant serve` runs."),
) -> None:
    """Talk with the assistant: each question can build on the earlier ones.

    Example: assistant chat clinic    (then: What is the Harbor Clinic? ... Who founded it?)
    """
    from models.config import load_settings
    from models.errors import AssistantError

    from ..conversation import chat as chat_service
    from ..strategies import DEFAULT_STRATEGY, make_strategy

    settings = load_settings()
    store = chat_service.threads(settings)
    if list_threads:  # a damaged thread is named as such; the others are listed all the same
        for saved in chat_service.thread_list(settings):
            aside = f"; {saved.set_aside}" if saved.set_aside else ""
            typer.echo(f"{saved.name}  (damaged: {saved.damaged})" if saved.damaged
                       else f"{saved.name}  ({saved.turns} turns{aside})")
        return
    if (delete or export) and not name:
        raise AssistantError("name the thread: assistant chat NAME --delete (or --export FILE)")
    if delete:
        store.delete(name)
        typer.echo(f"deleted the thread {name}")
        return
    if export:
        _export(_noted(store.load(name, whole=True)), export)
        return
    spec = DEFAULT_STRATEGY if strategy is None else strategy
    chosen = make_strategy(spec)
    name = name or _new_name(store)
    thread = _noted(store.load(name, create=True))
    _enable_history(settings.data_dir)
    earlier = f", {len(thread.turns)}{' recent' if thread.older_not_loaded else ''} earlier turns" if thread.turns else ""
    typer.echo(f"Thread {name}{earlier}. {HELP}")
    _loop(name, chosen, spec, settings, store, trace, local)


def _loop(name, chosen, spec, settings, store, trace, local) -> None:
    from models.errors import AssistantError

    from .ask import checked_question
    from .conversation import question_events, show
    from .open_source import remember

    while True:
        try:
            line = input("\n> ").strip()
        except EOFError:
            typer.echo("")
            return
        except KeyboardInterrupt:
            typer.echo("")
            return
        if not line:
            continue
        if line.startswith("/"):
            if _command(line, name, store):
                return
            continue
        try:
            answer = show(question_events(checked_question(line), chosen, spec, settings, name, local), trace)
            remember(settings.data_dir, answer)  # for `assistant open N`
        except AssistantError as exc:  # said, and the conversation goes on
            typer.echo(f"error: {exc}", err=True)
        except KeyboardInterrupt:
            typer.echo("\n(stopped)")


def _command(line: str, name: str, store) -> bool:
    """Run a /command; True to leave."""
    word, _, rest = line.partition(" ")
    if word in ("/quit", "/exit", "/q"):
        return True
    if word == "/export":
        _export(_noted(store.load(name, create=True, whole=True)), Path(rest.strip() or f"{name}.md"))
    elif word == "/threads":
        typer.echo(", ".join(store.names()) or "no saved threads")
    else:
        typer.echo(HELP)
    return False


def _noted(thread):
    """The thread, after saying where its damaged lines were set aside (when this read found some)."""
    if thread.set_aside:
        typer.echo(f"note: {thread.set_aside}", err=True)
    return thread


def _export(thread, target: Path) -> None:
    from models.errors import AssistantError

    text = thread.to_markdown()
    if str(target) == "-":
        typer.echo(text)
        return
    try:
        target.expanduser().write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AssistantError(f"cannot write {target}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {target} ({len(thread.turns)} turns)")


def _new_name(store) -> str:
    import time

    base = time.strftime("chat-%Y%m%d-%H%M")
    taken = set(store.names())
    return next(n for n in (base, *(f"{base}-{i}" for i in range(2, 1000))) if n not in taken)


def _enable_history(data_dir: Path) -> None:
    """Arrow keys recall earlier questions (readline, where the platform has it), kept in a file."""
    try:
        import atexit
        import readline
    except ImportError:
        return
    path = Path(data_dir) / "chat_history"
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    readline.set_history_length(1000)
    atexit.register(lambda: _save_history(readline, path))


def _save_history(readline, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(path)
    except OSError:
        pass
