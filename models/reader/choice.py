"""Whether a file can be the reader (`models use`, `models add`, the app's reader picker), and
which file a name or path given by the user means."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from models.downloads.catalog import find_entry
from models.config import Settings
from models.errors import ModelError
from models.reader.gguf_header import GGUFHeader, read_header
from models.downloads.installed import Installed, find_installed, load_installed


def resolve(name_or_path: str, data_dir: Path) -> tuple[Path, Installed | None]:
    """The file meant by an installed model's name, a catalog name, or a path."""
    model = find_installed(data_dir, name_or_path)
    if model is not None:
        if model.role != "reader":
            raise ModelError(f"{model.name} is a {model.role}, not a reader: run "
                             f"`assistant models export-judge {model.path} --int8` to make it the judge")
        if not model.exists:
            raise ModelError(f"{model.name}'s file {model.path} is gone; pull or add it again")
        return Path(model.path), model
    path = Path(name_or_path).expanduser()
    if path.exists():
        return path, next((m for m in load_installed(data_dir) if Path(m.path) == path.resolve()), None)
    entry = find_entry(name_or_path)
    if entry is not None:
        from models.downloads.catalog_match import installed_entry

        if (model := installed_entry(data_dir, entry)) is not None:  # added or placed by hand: offline too
            return Path(model.path), model
        raise ModelError(f"{entry.name} is not here yet: run `assistant models pull {entry.name}`, or offline "
                         f"put its file {entry.files[0]} anywhere and run `assistant models add FILE`")
    raise ModelError(f"'{name_or_path}' is neither an installed model (see `assistant models list`) "
                     "nor an existing file")


def check_header(path: Path) -> GGUFHeader:
    """A GGUF whose metadata holds a chat template: the strategies talk to the reader in chat turns."""
    header = read_header(path)
    if not header.chat_template.strip():
        raise ModelError(f"{path.name} has no chat template (GGUF key tokenizer.chat_template): it is a "
                         "base model or an old conversion; pick an instruction-tuned (chat) GGUF")
    if header.tensor_count == 0:
        raise ModelError(f"{path.name} holds no weights (0 tensors): it is only a GGUF header")
    return header


def check_reader(path: Path, settings: Settings) -> GGUFHeader:
    """check_header, then the reader's own load-and-decode self-check in a child process (the one
    every first use runs, cached per model and CPU), so `use` never picks a file that cannot run."""
    header = check_header(path)
    from models.registry import reader_extra_buffers

    try:
        reader_extra_buffers(dataclasses.replace(settings, reader=path.resolve()))
    except ModelError as exc:
        raise ModelError(f"{path.name} is not usable as the reader: {exc}") from None
    return header
