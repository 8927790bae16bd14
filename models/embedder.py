"""Sentence embeddings with sentence-transformers, loaded from a local folder, offline."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import ModelError


class Embedder:
    """Normalised embeddings (cosine = dot product), batched.

    backend "torch" is the default; "onnx" uses the int8-quantised ONNX export of the same
    model (exported on first use into the model folder's onnx/ subfolder when missing).
    """

    def __init__(self, path: Path, backend: str = "torch", batch_size: int = 64):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        self.path = Path(path)
        self.backend = backend
        self.batch_size = batch_size
        self.name = self.path.name
        try:
            from sentence_transformers import SentenceTransformer

            kwargs = {"device": "cpu", "local_files_only": True}
            if backend == "onnx":
                kwargs.update(backend="onnx", model_kwargs={"file_name": _onnx_file(self.path)})
            self.model = SentenceTransformer(str(self.path), **kwargs)
        except ModelError:
            raise
        except Exception as exc:  # the library raises many kinds; the user needs one line
            raise ModelError(f"cannot load embedding model from {self.path}: {exc}".splitlines()[0]) from None
        self.dim = int(self.model.get_embedding_dimension())

    @property
    def model_id(self) -> str:
        """Recorded in the index so that a different model is refused at query time."""
        return f"{self.name}:{self.dim}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return vectors.astype(np.float32, copy=False)


def _onnx_file(path: Path) -> str:
    candidates = ["onnx/model_qint8_avx512_vnni.onnx", "onnx/model_quint8_avx2.onnx", "onnx/model.onnx"]
    for name in candidates:
        if (path / name).is_file():
            return name
    raise ModelError(
        f"no ONNX export in {path}/onnx; run `assistant models export-embedder` to create the int8 one"
    )
