"""`assistant search QUERY`: the index's best passages for some words, without loading the reader."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .paths import given_path

search_app = typer.Typer()  # mounted by main.py
MAX_K = 50  # assistant.services.search.MAX_K (not imported here: --help stays light)


@search_app.command()
def search(
    query: str = typer.Argument(..., help="Words to look for (a question works too)."),
    k: int = typer.Option(5, "-k", "--k", min=1, max=MAX_K, help="How many passages to show."),
    collection: Optional[str] = typer.Option(None, "--collection", "-c",
                                             help="Search only this collection (default: all of them)."),
    index: Optional[Path] = typer.Option(None, "--index", parser=given_path,
                                         help="Index folder (default: in the user data dir)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per passage, best first."),
    local: bool = typer.Option(False, "--local", help="Search here even when `assistant serve` runs."),
) -> None:
    """Find passages in your documents: the hybrid search alone, no answer, no reader loaded.

    Each passage with its file, page or section, and a snippet. Through `assistant serve`
    when it runs over the same index (faster: the index is already open).

    Example: assistant search "parental leave" -k 3
    """
    from models.config import load_settings

    from ..server.client import running_server
    from .ask import checked_question

    settings = load_settings(index=index, collection=collection)
    query = checked_question(query)
    server = None if local or index is not None else running_server(settings)
    if server:  # the server has the index open: no LanceDB import here
        from ..server.client import search as remote_search

        rows = remote_search(server, query, k, collection)
    else:
        from ..services.search import search as find

        rows = [hit.as_dict() for hit in find(settings, query, k=k)]
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no passage found", err=True)
        return
    for row in rows:
        typer.echo(f"[{row['rank']}] {row['where']}  ({row['folder']})")
        typer.echo(f"    {row['snippet']}")
