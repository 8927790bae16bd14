"""Which embedder backend `embedder_backend = "auto"` (the default) means for an index.

An index of model2vec vectors (recorded, or said by its model id) keeps model2vec: its vectors
are of another kind. Otherwise torch where a GPU can run it (CUDA with a CUDA build of torch, or
Apple's MPS: the GPU path); on a CPU onnx, or onnx-int8 for an index built with it: the fp32 ONNX
export gives torch's vectors (cosine 1.0000) at 1.2x its speed in the indexer, loaded without torch
(EVALUATION.md, issue 53), so an index built with torch is updated with onnx on a CPU. The int8 export (`onnx-int8`) is faster again, but its vectors move
enough to change a third of the first read sets on the report questions, and the default's
answers with it fell short of torch's on HotpotQA: an option, not the default. All three give the
same model's vectors (one index identity), so an index built with one is searched and updated
with another; where int8 vectors meet exact ones `index add` says so in one line (`backend_note`).
Decided without importing torch:
the index's metadata file and a few file checks.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import platform
from pathlib import Path

from models.config import Settings

INDEX_META = "assistant-index.json"  # index_builder.store_tables.META_FILE (models sits below the index)
CPU_DEFAULT, GPU_DEFAULT = "onnx", "torch"
TRANSFORMER_BACKENDS = ("torch", "onnx", "onnx-int8")  # the same model's vectors, one index identity


def recorded_backend(index_path: Path) -> str | None:
    """The backend the index at `index_path` was built with, when it says; None otherwise."""
    try:
        meta = json.loads((Path(index_path) / INDEX_META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict):
        return None
    backend = meta.get("embedder_backend")
    if backend in TRANSFORMER_BACKENDS or backend == "model2vec":
        return backend
    if "+model2vec:" in str(meta.get("embedding_model") or ""):
        return "model2vec"
    return None


def gpu_for_torch() -> bool:
    """Whether torch would find a GPU here, guessed without importing it."""
    if platform.system() == "Darwin" and platform.machine() == "arm64":
        return True  # MPS
    try:
        build = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return False
    return "+cpu" not in build and (os.path.exists("/dev/nvidia0") or os.path.exists("/dev/dxg"))


def resolve_backend(settings: Settings) -> str:
    """The concrete backend (torch, onnx, onnx-int8 or model2vec) that `settings` asks for."""
    if settings.embedder_backend != "auto":
        return settings.embedder_backend
    recorded = recorded_backend(settings.index_path)
    if recorded == "model2vec":
        return "model2vec"
    if settings.embedder_device in ("cuda", "mps") or (settings.embedder_device == "auto" and gpu_for_torch()):
        return GPU_DEFAULT
    return "onnx-int8" if recorded == "onnx-int8" else CPU_DEFAULT


def backend_note(recorded: str | None, used: str) -> str:
    """One line when an index of int8 vectors gets exact ones, or the reverse (torch and onnx give
    the same vectors: nothing to say)."""
    if not recorded or recorded == used or "model2vec" in (recorded, used) or "onnx-int8" not in (recorded, used):
        return ""
    return (f"note: this index was built with the {recorded} embedder; new passages are embedded with {used} "
            f"(the same model, vectors equal to a cosine of 0.99 or more; --embedder-backend {recorded} keeps {recorded})")
