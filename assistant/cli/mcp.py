"""`assistant mcp`: serve the documents to agents over the Model Context Protocol (stdio)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .paths import given_path

mcp_app = typer.Typer()  # mounted by main.py


@mcp_app.command()
def mcp(
    index: Optional[Path] = typer.Option(None, "--index", parser=given_path,
                                         help="Index folder (default: in the user data dir)."),
    reader: Optional[Path] = typer.Option(None, "--reader", parser=given_path, help="Reader model: a .gguf file."),
) -> None:
    """Serve your documents to an MCP client (Claude Desktop, LM Studio, Jan...) over stdio.

    Tools: search_documents, ask_documents (answer, citations, grounding label),
    list_sources, list_collections. The client starts this command itself; see
    docs/other-tools.md for its configuration.

    Example: assistant mcp --index ~/notes-index
    """
    from models.config import load_settings

    from ..mcp_server.server import run_stdio

    run_stdio(load_settings(index=index, reader=reader))
