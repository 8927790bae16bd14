"""A deterministic hash embedder for index tests, and the small folder helpers they share."""
from __future__ import annotations

import hashlib

import numpy as np


class HashEmbedder:
    """Deterministic vectors from text hashes: fast, and enough for bookkeeping tests."""

    model_id = "hash:16"
    dim = 16

    def __init__(self):
        self.encoded = 0

    def encode(self, texts):
        self.encoded += len(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], dtype=np.uint8) for t in texts]
        vectors = np.array(rows, dtype=np.float32).reshape(len(texts), 16) + 1
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def ids(store):
    return sorted(store.passages.to_arrow()["id"].to_pylist())


def write(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
