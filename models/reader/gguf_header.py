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
_MAX_TENSORS = 1_000_000
_MAX_DIMS = 8
# ggml tensor types: (values per block, bytes per block), for the size of each tensor's weights.
# A type missing here counts as 0 bytes: the size check then errs on the side of "whole".
_BLOCKS = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 9: (32, 36),
           10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
           16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18), 21: (256, 110),
           22: (256, 82), 23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8),
           29: (256, 56), 30: (1, 2), 34: (256, 54), 35: (256, 66)}


@dataclass
class GGUFHeader:
    version: int
    tensor_count: int
    metadata: dict = field(default_factory=dict)
    data_end: int = 0  # where the last tensor's weights end: the least size of a whole file

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


def _skip_strings(fh: BinaryIO, count: int) -> None:
    """Past `count` strings without reading them (a 150k-token vocabulary: ~0.3 s decoded)."""
    length_of = struct.Struct("<Q").unpack
    for _ in range(count):
        (length,) = length_of(_read(fh, 8))
        if length > _MAX_STRING:
            raise ModelError(f"a text value of {length} bytes")
        fh.seek(length, 1)


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
        if item_kind == _STRING and count > _KEEP_ARRAY:  # the vocabulary: each string skipped, not decoded
            _skip_strings(fh, count)
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
        size = os.fstat(fh.fileno()).st_size
        if fh.tell() > size:  # a skipped array ran past the end
            raise _Truncated
        data_end = _data_end(fh, tensors, metadata)
        if data_end > size:
            raise ModelError(f"{path} is a truncated GGUF file (its weights end at {size:,} of {data_end:,} "
                             "bytes): download it again")
        return GGUFHeader(version, tensors, metadata, data_end)
    except _Truncated:
        raise ModelError(f"{path} is a truncated GGUF file (its header ends early): "
                         "download it again") from None
    except ModelError as exc:
        if str(exc).startswith(("not a GGUF", str(path))):
            raise
        raise ModelError(f"{path} is a damaged GGUF file ({exc})") from None


def _data_end(fh: BinaryIO, tensors: int, metadata: dict) -> int:
    """Read the tensor infos after the metadata: the offset at which the last weights end.

    A download cut in the weights has a whole header; llama.cpp then fails to load it with a
    message that read as "does not run on this CPU". The infos say how long the file must be."""
    if tensors > _MAX_TENSORS:
        raise ModelError(f"it claims {tensors} tensors")
    end = 0
    for _ in range(tensors):
        _string(fh)  # the tensor's name
        dims = _unpack(fh, "<I")
        if dims > _MAX_DIMS:
            raise ModelError(f"a tensor of {dims} dimensions")
        count = 1
        for _ in range(dims):
            count *= _unpack(fh, "<Q")
        kind, offset = _unpack(fh, "<I"), _unpack(fh, "<Q")
        per_block, block_bytes = _BLOCKS.get(kind, (1, 0))
        end = max(end, offset + count // per_block * block_bytes)
    alignment = metadata.get("general.alignment") or 32
    start = fh.tell()
    start += -start % alignment if isinstance(alignment, int) and alignment > 0 else 0
    return start + end if tensors else fh.tell()
