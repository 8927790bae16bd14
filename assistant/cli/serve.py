"""`assistant serve`: keep the models and the index loaded behind an OpenAI-compatible API."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

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
    cors_origin: Optional[List[str]] = typer.Option(
        None, "--cors-origin", metavar="ORIGIN", help="Let web pages of this origin (e.g. http://localhost:3000) call the API from "
                                    "a browser; repeat for more. Default: none."),
    allow_host: Optional[List[str]] = typer.Option(
        None, "--allow-host", metavar="NAME", help="Another name the Host header may give (a proxy's, a LAN name); repeatable. "
                                   "Loopback names and --host are always allowed."),
    queue_size: int = typer.Option(10, "--queue-size", min=1, max=1000,
                                   help="Questions waiting or being answered; more get 429 with Retry-After."),
    header_timeout: float = typer.Option(10.0, "--header-timeout", min=0.5, max=600, metavar="SECONDS",
                                         help="Seconds a request's headers may take to arrive."),
    body_timeout: float = typer.Option(30.0, "--body-timeout", min=0.5, max=3600, metavar="SECONDS",
                                       help="Seconds a request's body may take to arrive."),
    idle_timeout: float = typer.Option(5.0, "--idle-timeout", min=1, max=3600, metavar="SECONDS",
                                       help="Seconds an idle kept-alive connection stays open."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No line per request on stderr (method, path, "
                                                             "status, seconds)."),
) -> None:
    """Keep the models loaded behind an OpenAI-compatible API; ask and chat use it when it runs.

    /v1/chat/completions and /v1/models (the model names a strategy), /v1/events (the steps),
    /v1/search (passages alone). See docs/other-tools.md for clients.

    Example: assistant serve --port 8321
    """
    from models.config import load_settings

    from ..server.run import ServeOptions, check_bind, check_no_other_server, check_origin, serve as run_server

    settings = load_settings(index=index, reader=reader)
    check_bind(host, port, api_key)  # said before any model loads
    check_no_other_server(settings)
    origins = tuple(check_origin(o) for o in cors_origin or ())
    options = ServeOptions(cors_origins=origins, allowed_hosts=tuple(allow_host or ()), queue_size=queue_size,
                           header_seconds=header_timeout, body_seconds=body_timeout, idle_seconds=idle_timeout,
                           request_log=not quiet)
    typer.echo(f"Serving on http://{host}:{port}/v1 (models: GET /v1/models); Ctrl-C stops.", err=True)
    run_server(settings, host, port, api_key, options=options)
