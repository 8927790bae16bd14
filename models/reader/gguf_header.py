"""Read a GGUF file's metadata (the key-value header) without loading its weights.

Enough to tell whether a file is a usable chat reader before handing it to llama.cpp: the
format version, the architecture, the model's name and its chat template
(`tokenizer.chat_template`). Huge arrays (the vocabulary: 150,000 strings) are skipped, not kept.
Every bound is checked, so a damaged or hostile file is a ModelError, never a MemoryError or a hang.
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from models.errors import ModelError

MAGIC = b"GGUF"
# Value types of the GGUF spec (version 2 and 3): the fixed-size ones by struct format.
_FIXED = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_STRING = 64 * 2**20  # chat templates are a few KB; no real key or value comes near this
_MAX_KEYS = 100_000
_MAX_ARRAY = 2**26  # 67 M entries: far above any vocabulary
_KEEP_ARRAY = 64  # arrays longer than this are skipped, not kept (the vocabulary, merges, scores)


@dataclass
class GGUFHeader:
    version: int
    tensor_count: int
    metadata: dict = field(default_factory=dict)

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", ""))

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name", ""))

    @property
    def chat_template(self) -> str:
        template = self.metadata.get("tokenizer.chat_template", "")
        return template if isinstance(template, str) else ""


class _Truncated(Exception):
    pass


def _read(fh: BinaryIO, n: int) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise _Truncated
    return data


def _unpack(fh: BinaryIO, fmt: str):
    return struct.unpack(fmt, _read(fh, struct.calcsize(fmt)))[0]


def _string(fh: BinaryIO) -> str:
    length = _unpack(fh, "<Q")
    if length > _MAX_STRING:
        raise ModelError(f"a text value of {length} bytes")
    return _read(fh, length).decode("utf-8", errors="replace")


def _value(fh: BinaryIO, kind: int):
    if kind in _FIXED:
        return _unpack(fh, _FIXED[kind])
    if kind == _STRING:
        return _string(fh)
    if kind == _ARRAY:
        item_kind, count = _unpack(fh, "<I"), _unpack(fh, "<Q")
        if count > _MAX_ARRAY:
            raise ModelError(f"an array of {count} entries")
        if item_kind in _FIXED and count > _KEEP_ARRAY:  # skip without decoding
            fh.seek(struct.calcsize(_FIXED[item_kind]) * count, 1)
            return None
        items = [_value(fh, item_kind) for _ in range(count)]
        return items if count <= _KEEP_ARRAY else None
    raise ModelError(f"unknown value type {kind}")


def starts_as_gguf(fh: BinaryIO) -> bool:
    """Whether the file (read from its current position) starts with the GGUF magic."""
    return fh.read(len(MAGIC)) == MAGIC


def read_header(path: Path) -> GGUFHeader:
    """The header of GGUF file `path`, or a ModelError saying in one line what is wrong."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            return _parse(fh, path)
    except IsADirectoryError:
        raise ModelError(f"{path} is a folder, not a GGUF model file") from None
    except FileNotFoundError:
        raise ModelError(f"model file not found: {path}") from None
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {exc.strerror or exc}") from None


def _parse(fh: BinaryIO, path: Path) -> GGUFHeader:
    try:
        if not starts_as_gguf(fh):
            raise ModelError(f"not a GGUF model file: {path} (it does not start with 'GGUF'; "
                             "readers must be llama.cpp GGUF files)")
        version = _unpack(fh, "<I")
        if version not in (2, 3):
            raise ModelError(f"{path} is GGUF version {version}; this reader supports versions 2 and 3")
        tensors, keys = _unpack(fh, "<Q"), _unpack(fh, "<Q")
        if keys > _MAX_KEYS:
            raise ModelError(f"{path} is a damaged GGUF file (it claims {keys} metadata keys)")
        metadata = {}
        for _ in range(keys):
            key = _string(fh)
            metadata[key] = _value(fh, _unpack(fh, "<I"))
        if fh.tell() > os.fstat(fh.fileno()).st_size:  # a skipped array ran past the end
            raise _Truncated
        return GGUFHeader(version, tensors, metadata)
    except _Truncated:
        raise ModelError(f"{path} is a truncated GGUF file (its header ends early): "
                         "download it again") from None
    except ModelError as exc:
        if str(exc).startswith(("not a GGUF", str(path))):
            raise
        raise ModelError(f"{path} is a damaged GGUF file ({exc})") from None
