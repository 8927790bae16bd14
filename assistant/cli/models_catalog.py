"""The second half of `assistant models list`: installed readers, the catalog in the order that
suits this machine (each entry saying what it is good for), a recommendation."""
from __future__ import annotations

from pathlib import Path

import typer

from ..sizes import human_size

MAX_NAME = 32  # a longer name gets a line of its own, so the columns below it stay aligned


def _active_reader(settings) -> Path | None:
    from models.errors import AssistantError
    from models.registry import reader_path

    try:
        return reader_path(settings).resolve()
    except AssistantError:
        return None


def name_column(names: list[str]) -> tuple[int, callable]:
    """The width of the name column, and a function giving a row's prefix: the padded name, or,
    for a name too long for the column, the name on its own line and the column left blank."""
    width = min(max([len(n) for n in names] + [12]), MAX_NAME)

    def cell(name: str, indent: str) -> str:
        if len(name) <= width:
            return f"{indent}{name:{width}}"
        return f"{indent}{name}\n{indent}{'':{width}}"
    return width, cell


def show_readers_and_catalog(settings) -> None:
    from models.downloads.catalog import load_catalog, recommend
    from models.downloads.catalog_fit import ordered_for
    from models.downloads.catalog_match import installed_entry
    from models.downloads.installed import load_installed
    from models.errors import AssistantError
    from models.machine import llama_has_gpu, this_machine
    from models.registry import bundled_reader_path

    active = _active_reader(settings)
    installed = load_installed(settings.data_dir)
    catalog = load_catalog()
    # catalog entries present here (added by hand or placed where `pull` puts them count too)
    present = {entry.name: model for entry in catalog if entry.is_reader
               and (model := installed_entry(settings.data_dir, entry)) is not None}
    installed = load_installed(settings.data_dir)  # installed_entry may have recorded a placed file
    typer.echo("\ninstalled readers (* = active)")
    rows = []
    try:
        rows.append(("smollm2-135m", bundled_reader_path().resolve(), "bundled"))
    except AssistantError:
        pass
    catalog_of = {model.path: name for name, model in present.items()}
    rows += [(m.name, Path(m.path), m.source + (", hash checked" if m.source == "pulled" else "")
              + (f", catalog {catalog_of[m.path]}" if catalog_of.get(m.path, m.name) != m.name else ""))
             for m in installed if m.role == "reader"]
    if active is not None and all(path.resolve() != active for _, path, _ in rows if path.exists()):
        rows.append((active.stem.lower(), active, "from config"))
    _, cell = name_column([name for name, _, _ in rows])
    for name, path, source in rows:
        mark = "*" if active is not None and path.exists() and path.resolve() == active else " "
        size = human_size(path.stat().st_size) if path.exists() else "missing"
        typer.echo(f"{cell(name, ' ' + mark + ' ')} {size:>9}  {source}  {path}")
    for model in installed:
        if model.role != "reader":
            typer.echo(f"   {model.name} ({model.role}): assistant models export-judge {model.path} --int8")

    machine = this_machine()
    typer.echo(f"\ncatalog for this machine ({machine.describe()}), best fit first; "
               "get one: assistant models pull NAME")
    _, cell = name_column([entry.name for entry in catalog])
    for placed in ordered_for(machine, catalog):
        entry = placed.entry
        state = "installed" if entry.name in present or any(
            m.name == entry.name and m.exists for m in installed) else ""
        role = entry.role + (" (GPU)" if entry.gpu else "")
        typer.echo(f"{cell(entry.name, '   ')} {role:12} {entry.size_gb:>4g} GB  {placed.note}"
                   f"{'  ' + state if state else ''}")
        if entry.good_for:
            typer.echo(f"      good for: {entry.good_for}")
        typer.echo(f"      {entry.licence}; quality: {entry.quality}")

    choice = recommend(machine.ram_gb, machine.gpu_vram_gb, catalog)
    if choice.entry is None:
        typer.echo(f"\nrecommended reader: none from the catalog ({choice.reason})")
        return
    typer.echo(f"\nrecommended reader: {choice.entry.name} ({choice.reason})")
    if choice.entry.good_for:
        typer.echo(f"  why: {choice.entry.good_for}")
    if choice.entry.gpu and not llama_has_gpu():
        typer.echo("  this llama-cpp-python build has no GPU support: reinstall it with CUDA (docs/gpu.md)")
    if choice.entry.name not in present:
        typer.echo(f"  get it: assistant models pull {choice.entry.name} && assistant models use {choice.entry.name}")
