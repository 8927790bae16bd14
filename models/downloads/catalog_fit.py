"""The catalog in the order that suits this machine: readers that fit its memory (and, for GPU
readers, a GPU) first, lighter ones first on few cores; each with a note saying why it is where
it is. `models list` and the app's reader picker show this order."""
from __future__ import annotations

from dataclasses import dataclass

from models.downloads.catalog import CatalogEntry
from models.machine import Machine

FEW_CORES = 4  # at or below: a 3B reader (twice the 1.5B's weights) answers too slowly to come first
HEAVY_GB = 1.5  # readers whose file is bigger than this read every token's weights slowly on few cores


@dataclass(frozen=True)
class Placed:
    entry: CatalogEntry
    fits: bool  # runs here (memory, and a GPU when it needs one)
    note: str  # "fits", "needs a GPU with 6 GB", "needs 3.5 GB RAM", "slow on 2 cores"


def place(entry: CatalogEntry, machine: Machine) -> Placed:
    if not entry.is_reader:
        return Placed(entry, machine.ram_gb >= entry.ram_gb, f"not a reader; {entry.ram_note}")
    if entry.gpu:
        if machine.gpu_vram_gb >= entry.vram_gb:
            return Placed(entry, True, f"fits this GPU ({entry.vram_gb:g} GB)")
        return Placed(entry, False, f"needs a GPU with {entry.vram_gb:g} GB")
    if machine.ram_gb < entry.ram_gb:
        return Placed(entry, False, f"needs {entry.ram_note}; this machine has {machine.ram_gb:.0f} GB")
    if machine.cores <= FEW_CORES and entry.size_gb > HEAVY_GB:
        return Placed(entry, True, f"fits, but slow on {machine.cores} cores")
    return Placed(entry, True, "fits")


def ordered_for(machine: Machine, catalog: list[CatalogEntry]) -> list[Placed]:
    """Readers that fit first (GPU ones only with a GPU; on few cores light ones before heavy
    ones), then readers that do not fit, then other roles; `prefer` orders within each group."""
    def rank(placed: Placed) -> tuple:
        entry = placed.entry
        heavy = machine.cores <= FEW_CORES and entry.size_gb > HEAVY_GB and not (entry.gpu and placed.fits)
        return (not entry.is_reader, not placed.fits, heavy, entry.prefer)

    return sorted((place(entry, machine) for entry in catalog), key=rank)
