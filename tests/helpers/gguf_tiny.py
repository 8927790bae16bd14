"""Write minimal GGUF files (a header of metadata, no tensors) for tests of header reading and
`models use` refusals: a real reader model is ~100 MB, these are a few hundred bytes."""
from __future__ import annotations

import struct
from pathlib import Path

CHATML = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
          "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _value(value) -> tuple[int, bytes]:
    if isinstance(value, bool):
        return 7, struct.pack("<?", value)
    if isinstance(value, int):
        return 4, struct.pack("<I", value)
    if isinstance(value, float):
        return 6, struct.pack("<f", value)
    if isinstance(value, str):
        return 8, _string(value)
    if isinstance(value, list):  # arrays of one type, strings or 32-bit ints
        kind = 8 if value and isinstance(value[0], str) else 5
        body = b"".join(_string(v) if kind == 8 else struct.pack("<i", v) for v in value)
        return 9, struct.pack("<IQ", kind, len(value)) + body
    raise TypeError(value)


def write_gguf(path: Path, metadata: dict, version: int = 3, tensors: int = 0) -> Path:
    path = Path(path)
    body = b""
    for key, value in metadata.items():
        kind, data = _value(value)
        body += _string(key) + struct.pack("<I", kind) + data
    head = b"GGUF" + struct.pack("<IQQ", version, tensors, len(metadata)) + body
    for i in range(tensors):  # one F32 tensor of 8 values each, so that the file is whole
        head += _string(f"t{i}") + struct.pack("<IQIQ", 1, 8, 0, 32 * i)
    data = b"\0" * (-len(head) % 32) + b"\0" * 32 * tensors if tensors else b""
    path.write_bytes(head + data)
    return path


def chat_reader_header(path: Path, template: str | None = CHATML, vocab: int = 1000, tensors: int = 0) -> Path:
    """A header like a chat reader's: architecture, name, a long vocabulary, and a chat template
    unless template is None. `tensors` tiny tensors of zeros follow: not weights llama.cpp can run."""
    metadata = {"general.architecture": "llama", "general.name": "Tiny Test Reader",
                "tokenizer.ggml.tokens": [f"t{i}" for i in range(vocab)],
                "tokenizer.ggml.token_type": [1] * vocab}
    if template is not None:
        metadata["tokenizer.chat_template"] = template
    return write_gguf(path, metadata, tensors=tensors)
