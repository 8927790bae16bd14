"""The second half of `assistant models list`: installed readers, the catalog, a recommendation."""
from __future__ import annotations

from pathlib import Path

import typer

from ..sizes import human_size


def _active_reader(settings) -> Path | None:
    from models.errors import AssistantError
    from models.registry import reader_path

    try:
        return reader_path(settings).resolve()
    except AssistantError:
        return None


def show_readers_and_catalog(settings) -> None:
    from models.downloads.catalog import load_catalog, recommend
    from models.downloads.installed import load_installed
    from models.machine import llama_has_gpu, this_machine
    from models.registry import bundled_reader_path
    from models.errors import AssistantError

    active = _active_reader(settings)
    installed = load_installed(settings.data_dir)
    typer.echo("\ninstalled readers (* = active)")
    rows = []
    try:
        rows.append(("smollm2-135m", bundled_reader_path().resolve(), "bundled"))
    except AssistantError:
        pass
    rows += [(m.name, Path(m.path), m.source + (", hash checked" if m.source == "pulled" else ""))
             for m in installed if m.role == "reader"]
    if active is not None and all(path.resolve() != active for _, path, _ in rows if path.exists()):
        rows.append((active.stem.lower(), active, "from config"))
    for name, path, source in rows:
        mark = "*" if active is not None and path.exists() and path.resolve() == active else " "
        size = human_size(path.stat().st_size) if path.exists() else "missing"
        typer.echo(f" {mark} {name:24} {size:>9}  {source}  {path}")
    for model in installed:
        if model.role != "reader":
            typer.echo(f"   {model.name:24} {model.role}: assistant models export-judge {model.path} --int8")

    catalog = load_catalog()
    names = {m.name for m in installed if m.exists}
    typer.echo("\ncatalog (assistant models pull NAME)")
    for entry in catalog:
        state = "installed" if entry.name in names else ""
        gpu = f", {entry.vram_gb:g} GB GPU" if entry.gpu else ""
        typer.echo(f"   {entry.name:20} {entry.role:10} {entry.size_gb:>4g} GB  {entry.ram_note}{gpu}  "
                   f"{entry.licence}  {state}".rstrip())
        typer.echo(f"      {entry.quality}")

    machine = this_machine()
    choice = recommend(machine.ram_gb, machine.gpu_vram_gb, catalog)
    typer.echo(f"\nthis machine: {machine.describe()}")
    if choice.entry is None:
        typer.echo(f"recommended reader: none from the catalog ({choice.reason})")
        return
    typer.echo(f"recommended reader: {choice.entry.name} ({choice.reason})")
    if choice.entry.gpu and not llama_has_gpu():
        typer.echo("  this llama-cpp-python build has no GPU support: reinstall it with CUDA (README, GPU)")
    if choice.entry.name not in names:
        typer.echo(f"  get it: assistant models pull {choice.entry.name} && assistant models use {choice.entry.name}")
