"""`assistant index ...`: build and inspect the document index."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .main import app

index_app = typer.Typer(help="Build and inspect the document index.", no_args_is_help=True)
app.add_typer(index_app, name="index")


def _progress_bar():
    """A rich progress bar fed by index_builder Progress reports."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                   transient=False)
    task = bar.add_task("indexing", total=None, rate="")

    def update(progress):
        bar.update(task, completed=progress.files_done, total=progress.total_files,
                   rate=f"{progress.passages_done} passages, {progress.passages_per_second:.0f}/s")

    return bar, update


@index_app.command("add")
def add(
    path: Path = typer.Argument(..., help="A folder of documents."),
    index: Optional[Path] = typer.Option(None, "--index", help="Index folder (default: in the user data dir)."),
) -> None:
    """Index a folder (again): new and changed files are embedded, unchanged ones skipped.

    Example: assistant index add ~/Documents/notes
    """
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings
    from models.errors import AssistantError

    if not path.exists():
        raise AssistantError(f"no such folder: {path}")
    settings = load_settings(index=index)
    embedder = registry.get_embedder(settings)
    store = IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim)
    bar, update = _progress_bar()
    with bar:
        summary = index_folder(store, embedder, path, on_progress=update)
    typer.echo(summary.line())
    for rel, reason in summary.skipped:
        typer.echo(f"  skipped {rel}: {reason}")
    typer.echo(f"index: {settings.index_path}")
