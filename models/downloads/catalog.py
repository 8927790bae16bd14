"""The curated models `assistant models pull NAME` knows, read from catalog.toml beside this file,
and which reader to recommend for a machine's memory and GPU."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from models.errors import ModelError

CATALOG_FILE = Path(__file__).with_name("catalog.toml")


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    role: str  # "reader" (a GGUF chat model) or "judge-base" (a T5 checkpoint for export-judge)
    repo: str
    files: tuple[str, ...]
    size_gb: float
    ram_gb: float
    licence: str
    quality: str
    quantization: str = ""
    vram_gb: float = 0.0
    gpu: bool = False  # meant for a GPU: recommended only when one with vram_gb is found
    ram_measured: bool = False
    prefer: int = 99
    next: str = ""  # the command that makes a pulled judge base usable ({folder}: where it went)
    good_for: str = ""  # what to use it for, in a few words
    sha256: str = ""  # the reader file's hash: a file added by hand with this hash is this entry
    # the log-odds by which this reader leans to "yes" on a yes/no question, measured on training
    # questions (assistant/checks/yes_no.py); 0: not measured, its yes/no answers stand as written
    yes_lean: float = 0.0
    # the P(yes) this reader must give when it reads again the lines a short answer rests on in a
    # person's files (assistant/grounding/documents_check.py), chosen on the personal set's tune
    # half; 0: not measured, its answers there are labelled by the word check alone (a reader too
    # small to judge, like the bundled SmolLM2, said no to right answers)
    reread: float = 0.0

    @property
    def is_reader(self) -> bool:
        return self.role == "reader"

    @property
    def ram_note(self) -> str:
        return f"{self.ram_gb:g} GB RAM" + (" (measured)" if self.ram_measured else " (estimate)")


def load_catalog(path: Path = CATALOG_FILE) -> list[CatalogEntry]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return [CatalogEntry(**{**row, "files": tuple(row["files"])}) for row in data.get("model", [])]
    except (OSError, tomllib.TOMLDecodeError, TypeError, KeyError) as exc:
        raise ModelError(f"the model catalog {path} is damaged ({exc}); reinstall the assistant") from None


def find_entry(name: str, catalog: list[CatalogEntry] | None = None) -> CatalogEntry | None:
    wanted = name.strip().lower()
    return next((e for e in (catalog or load_catalog()) if e.name == wanted), None)


def _reader_entry(reader_file: str | Path, catalog: list[CatalogEntry] | None) -> CatalogEntry | None:
    """The catalog reader with this file name (a rename, or a reader not in the catalog: None)."""
    name = Path(reader_file).name.lower()
    return next((e for e in (catalog or load_catalog()) if e.is_reader and e.files[0].lower() == name), None)


def measured_of(reader_file: str | Path, field: str, catalog: list[CatalogEntry] | None = None) -> float | None:
    """A figure measured for the catalog reader with this file name (`yes_lean`, `reread`); None
    when it has none (0, or a reader not in the catalog)."""
    entry = _reader_entry(reader_file, catalog)
    value = getattr(entry, field) if entry is not None else 0.0
    return value if value > 0 else None


def yes_lean_of(reader_file: str | Path, catalog: list[CatalogEntry] | None = None) -> float | None:
    return measured_of(reader_file, "yes_lean", catalog)


def reread_threshold_of(reader_file: str | Path, catalog: list[CatalogEntry] | None = None) -> float | None:
    return measured_of(reader_file, "reread", catalog)


def reader_measured(reader, field: str) -> float | None:
    """`measured_of` for a loaded reader (by its file); None for one without a file, or when the
    catalog cannot be read (the check that needs the figure then stays out of the way)."""
    path = getattr(reader, "path", None)
    if path is None:
        return None
    try:
        return measured_of(path, field)
    except ModelError:
        return None


def unknown_name_message(name: str, catalog: list[CatalogEntry] | None = None) -> str:
    names = ", ".join(e.name for e in (catalog or load_catalog()))
    return (f"'{name}' is not in the catalog (known: {names}); for another GGUF on the hub give "
            "the repository and the file: assistant models pull OWNER/REPO FILE.gguf")


@dataclass(frozen=True)
class Recommendation:
    entry: CatalogEntry | None  # None: nothing in the catalog fits; keep the bundled SmolLM2
    reason: str


def recommend(ram_gb: float, gpu_vram_gb: float = 0.0, catalog: list[CatalogEntry] | None = None
              ) -> Recommendation:
    """The preferred reader that fits: a GPU reader only when a GPU with enough memory is found."""
    readers = sorted((e for e in (catalog or load_catalog()) if e.is_reader), key=lambda e: e.prefer)
    for entry in readers:
        if entry.gpu:
            if gpu_vram_gb >= entry.vram_gb:
                return Recommendation(entry, f"needs a GPU with {entry.vram_gb:g} GB, this one has "
                                             f"{gpu_vram_gb:.0f} GB")
            continue
        if ram_gb >= entry.ram_gb:
            return Recommendation(entry, f"needs {entry.ram_note}, this machine has {ram_gb:.0f} GB")
    return Recommendation(None, f"{ram_gb:.1f} GB of RAM is too little for the catalog's readers; "
                                "keep the bundled SmolLM2-135M")
