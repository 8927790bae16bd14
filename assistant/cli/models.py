"""`assistant models ...`: which model serves each role, pulling and choosing readers, and turning a
T5 checkpoint into the judge."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from .paths import given_path

models_app = typer.Typer(help="Show, pull and choose models; export a T5 checkpoint as the judge.",
                         no_args_is_help=True)


@models_app.command("list")
def list_models() -> None:
    """Each role's model, file, size, backend and device; the installed readers (the active one
    marked); the catalog `models pull` knows; and the reader recommended for this machine.

    Example: assistant models list
    """
    from models.config import load_settings

    from .. import service

    settings = load_settings()
    for role, row in service.model_rows(settings):
        if isinstance(row, str):
            typer.echo(f"{role:9} missing: {row}")
            continue
        typer.echo(f"{role:9} {row.pop('model')}")
        for key, value in row.items():
            typer.echo(f"  {key:10} {value}")
    from .models_catalog import show_readers_and_catalog

    show_readers_and_catalog(settings)


@models_app.command("export-judge")
def export_judge(
    checkpoint: Path = typer.Argument(..., parser=given_path, help="A Hugging Face T5 folder (config.json, weights, tokenizer)."),
    int8: bool = typer.Option(False, "--int8", help="Dynamic int8 quantization: ~4x smaller, faster on CPU."),
    out: Optional[Path] = typer.Option(None, "--out", parser=given_path, help="Judge folder (default: <data dir>/judges/NAME)."),
    use: bool = typer.Option(True, "--use/--no-use", help="Register it as the judge in config.toml."),
) -> None:
    """Export a T5 checkpoint to ONNX (only the files inference needs) and make it the judge.

    Example: assistant models export-judge ~/models/flan-t5-large --int8
    """
    from models.config import load_settings
    from models.user_config import use_t5_judge

    from research import judge_service

    settings = load_settings(config_may_be_missing=True)  # `use_t5_judge` may create the config file
    folder = judge_service.export_t5_judge(
        checkpoint, out or judge_service.default_judge_folder(settings.data_dir, checkpoint, int8), int8=int8)
    from models.judges.t5_onnx import folder_size

    typer.echo(f"exported {'int8' if int8 else 'fp32'} judge: {folder} ({folder_size(folder) / 2**20:.1f} MB)")
    if use:
        typer.echo(f"registered as the judge in {use_t5_judge(folder)} (judge = \"t5\")")


def _pull_events(bar):
    from models.downloads.download import megabytes
    from models.downloads.pull import PullEvents

    tasks = {}

    def start(remote, already):
        if already == remote.size:
            typer.echo(f"{remote.repo}/{remote.filename} is already here ({megabytes(remote.size)}); checking it")
        else:
            resumed = f" (resuming at {megabytes(already)})" if already else ""
            typer.echo(f"downloading {remote.repo}/{remote.filename} ({megabytes(remote.size)}){resumed}")
        bar.start()  # only now: an error before the first file leaves just its one line
        tasks["download"] = bar.add_task(remote.filename, total=remote.size, completed=already)
        tasks["verify"] = None

    def progress(done, total):
        bar.update(tasks["download"], completed=done, total=total)

    def verify(done, total):
        if tasks["verify"] is None:
            tasks["verify"] = bar.add_task("checking hash", total=total)
        bar.update(tasks["verify"], completed=done)

    return PullEvents(start=start, progress=progress, verify=verify)


def _stop(bar) -> None:
    if bar.live.is_started:  # stopping a bar that never started still prints an empty line
        bar.stop()


@models_app.command("pull")
def pull(
    name: str = typer.Argument(..., help="A catalog name (see `assistant models list`), or OWNER/REPO of any GGUF on the hub."),
    filename: Optional[str] = typer.Argument(None, help="With OWNER/REPO: the .gguf file to download."),
) -> None:
    """Download a model from the Hugging Face hub, resumably, and check it against the hub's hash.

    Examples: assistant models pull qwen2.5-coder-1.5b ·
    assistant models pull bartowski/Qwen2.5-3B-Instruct-GGUF Qwen2.5-3B-Instruct-Q4_K_M.gguf
    """
    from models.downloads.catalog import find_entry, unknown_name_message
    from models.config import load_settings
    from models.errors import ModelError
    from models.downloads.pull import pull_entry, pull_gguf
    from assistant.services.pull import user_offline

    from .progress import download_bar

    settings = load_settings()
    entry = None if filename else find_entry(name)
    if filename is None and entry is None:
        raise ModelError(unknown_name_message(name))
    bar = download_bar()
    events = _pull_events(bar)
    try:
        if entry is not None:
            model = pull_entry(entry, settings.data_dir, offline=user_offline(), events=events)
        else:
            model = pull_gguf(name, filename, settings.data_dir, offline=user_offline(), events=events)
    except KeyboardInterrupt:
        _stop(bar)
        typer.echo("interrupted: the part already downloaded is kept; run the same command to resume", err=True)
        raise typer.Exit(130) from None
    finally:
        _stop(bar)
    if model.role == "reader":
        typer.echo(f"pulled {model.name}: {model.path} (hash checked)")
        typer.echo(f"make it the reader: assistant models use {model.name}")
    else:
        typer.echo(f"pulled {model.name} into {model.path} (hashes checked)")
        if entry is not None and entry.next:
            typer.echo(f"make it the judge: {entry.next.format(folder=model.path)}")


@models_app.command("use")
def use(name_or_path: str = typer.Argument(..., help="An installed model's name (see `assistant models list`) or a .gguf file.")) -> None:
    """Make a model the default reader (config.toml) once it proves a GGUF chat model that runs here.

    Checks: the GGUF header, a chat template, and the reader's load-and-decode self-check.

    Example: assistant models use qwen2.5-coder-1.5b
    """
    from models.config import load_settings
    from models.downloads.installed import Installed, name_for, record
    from models.reader.choice import check_reader, resolve

    from models.user_config import set_values

    settings = load_settings(config_may_be_missing=True)
    path, model = resolve(name_or_path, settings.data_dir)
    header = check_reader(path, settings)
    if model is None:  # a file given by path: remember it, so that list and the app offer it
        model = Installed(name_for(path), str(path.resolve()), size=path.stat().st_size)
        record(settings.data_dir, model)
    config = set_values({"reader": str(path.resolve())})
    typer.echo(f"reader: {model.name} ({header.name or header.architecture}, {path.resolve()}); "
               f"written to {config}")
    if os.environ.get("ASSISTANT_READER"):  # the environment outranks the config file
        typer.echo(f"note: ASSISTANT_READER={os.environ['ASSISTANT_READER']} still overrides it; unset it")


@models_app.command("add")
def add(
    path: Path = typer.Argument(..., parser=given_path, help="A local .gguf chat model."),
    name: Optional[str] = typer.Option(None, "--name", help="What to call it (default: the file name)."),
) -> None:
    """Register a GGUF file you already have, so that `models list`, `models use NAME` and the app offer it.

    Example: assistant models add ~/Downloads/qwen2.5-1.5b-instruct-q4_k_m.gguf
    """
    from models.config import load_settings
    from models.downloads.catalog_match import entry_for_file, sha256_of
    from models.downloads.installed import Installed, name_for, record
    from models.reader.choice import check_header

    settings = load_settings()
    path = path.expanduser().resolve()
    header = check_header(path)
    typer.echo(f"checking {path.name} against the catalog (reading {path.stat().st_size / 2**30:.1f} GB)...")
    sha = sha256_of(path)
    entry = entry_for_file(path, sha)
    chosen = (name or (entry.name if entry else name_for(path))).strip().lower()
    model = Installed(chosen, str(path), size=path.stat().st_size, sha256=sha, repo=entry.repo if entry else "")
    record(settings.data_dir, model)
    matched = f"; it is the catalog's {entry.name}" if entry else ""
    typer.echo(f"added {model.name} ({header.name or header.architecture}, {path}){matched}; "
               f"make it the reader: assistant models use {model.name}")
