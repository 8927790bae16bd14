"""`assistant serve`: keep the models and the index loaded behind an OpenAI-compatible API."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

serve_app = typer.Typer()  # mounted by main.py


@serve_app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on; other than loopback needs --api-key."),
    port: int = typer.Option(8321, "--port", min=1, max=65535, help="Port to listen on."),
    api_key: Optional[str] = typer.Option(None, "--api-key", envvar="ASSISTANT_API_KEY",
                                          help="Require `Authorization: Bearer KEY` on every request."),
    index: Optional[Path] = typer.Option(None, "--index", help="Index folder (default: in the user data dir)."),
    reader: Optional[Path] = typer.Option(None, "--reader", help="Reader model: a .gguf file."),
) -> None:
    """Keep the models loaded behind an OpenAI-compatible API; ask and chat use it when it runs.

    /v1/chat/completions and /v1/models (the model names a strategy), /v1/events (the steps).

    Example: assistant serve --port 8321
    """
    from models.config import load_settings

    from ..server.run import check_bind, serve as run_server

    settings = load_settings(index=index, reader=reader)
    check_bind(host, port, api_key)  # said before any model loads
    typer.echo(f"Serving on http://{host}:{port}/v1 (models: GET /v1/models); Ctrl-C stops.", err=True)
    run_server(settings, host, port, api_key)
