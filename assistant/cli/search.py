"""`assistant search QUERY`: the index's best passages for some words, without loading the reader."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .paths import given_path

search_app = typer.Typer()  # mounted by main.py
MAX_K = 50  # assistant.search_service.MAX_K (not imported here: --help stays light)


@search_app.command()
def search(
    query: str = typer.Argument(..., help="Words to look for (a question works too)."),
    k: int = typer.Option(5, "-k", "--k", min=1, max=MAX_K, help="How many passages to show."),
    collection: Optional[str] = typer.Option(None, "--collection", "-c",
                                             help="Search only this collection (default: all of them)."),
    index: Optional[Path] = typer.Option(None, "--index", parser=given_path,
                                         help="Index folder (default: in the user data dir)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per passage, best first."),
) -> None:
    """Find passages in your documents: the hybrid search alone, no answer, no reader loaded.

    Each passage with its file, page or section, and a snippet.

    Example: assistant search "parental leave" -k 3
    """
    from models.config import load_settings

    from ..search_service import search as find
    from .ask import checked_question

    settings = load_settings(index=index, collection=collection)
    hits = find(settings, checked_question(query), k=k)
    if as_json:
        for hit in hits:
            typer.echo(json.dumps(hit.as_dict(), ensure_ascii=False))
        return
    if not hits:
        typer.echo("no passage found", err=True)
        return
    for hit in hits:
        typer.echo(f"[{hit.rank}] {hit.where}  ({hit.folder})")
        typer.echo(f"    {hit.snippet}")
