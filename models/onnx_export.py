"""The ONNX exports of a sentence-transformers model that the onnx embedder backends run: made
once, offline, from the model folder, into a cache folder beside the data.

Two kinds, by backend:
- `onnx`: the model in fp32 with onnxruntime's graph fusions baked in (optimum's O3 level).
  The same arithmetic as torch, so the same vectors (cosine 1.0000 on real passages), at about
  1.2x torch's speed in the indexer on 2 cores (1.5-2x on texts encoded alone): the fused
  attention and layer-norm kernels, and no torch import.
- `onnx-int8`: weights and activations quantised to int8 (dynamic quantisation), faster again,
  but the vectors move (cosine ~0.99 to torch's), and with them a third of the first read sets on
  the report questions (EVALUATION.md, "Indexing speed and the embedder backends").

Written beside and renamed, so an interrupted export never leaves a half-written model behind.
"""
from __future__ import annotations

import contextlib
import logging
import os
import platform
import shutil
import warnings
from pathlib import Path

from models.errors import ModelError

INT8_SUFFIX, FP32_SUFFIX = "-onnx-int8", "-onnx"
OPTIMISED = "model_O3.onnx"  # the fp32 export with its fusions; model.onnx when they cannot be made


def export_file(folder: Path, int8: bool) -> str | None:
    """The export of the asked kind in `folder` (relative name), None when there is none."""
    onnx = Path(folder) / "onnx"
    if not onnx.is_dir():
        return None
    if int8:
        found = sorted(onnx.glob("model_q*.onnx"))
        return f"onnx/{found[0].name}" if found else None
    for name in (OPTIMISED, "model.onnx"):
        if (onnx / name).is_file():
            return f"onnx/{name}"
    return None


def onnx_model(path: Path, cache: Path | None = None, int8: bool = False) -> tuple[Path, str]:
    """(folder, file name) of the ONNX model of `path` (int8 or fp32), exported once into `cache`
    (default: the user's cache dir, shared by every data dir) when missing (`find_export`)."""
    found = find_export(path, cache, int8)
    if found:
        return found
    folder = _cache(cache) / _name(path, int8)
    _export(Path(path), folder, int8)
    return folder, export_file(folder, int8)


def find_export(path: Path, cache: Path | None = None, int8: bool = False) -> tuple[Path, str] | None:
    """The export made already, if any: in the model folder itself, then `cache`, then under the
    default data dir (where exports were kept before)."""
    from models.config import default_data_dir

    path = Path(path)
    found = export_file(path, int8)
    if found:
        return path, found
    for where in dict.fromkeys([_cache(cache), default_data_dir() / "models"]):
        found = export_file(where / _name(path, int8), int8)
        if found:
            return where / _name(path, int8), found
    return None


def _cache(cache: Path | None) -> Path:
    from models.config import default_cache_dir

    return Path(cache) if cache is not None else default_cache_dir() / "models"


def _name(path: Path, int8: bool) -> str:
    return f"{Path(path).name}{INT8_SUFFIX if int8 else FP32_SUFFIX}"


def reason_line(exc: Exception, limit: int = 300) -> str:
    """A library's message as one short line: its first line, or only its first sentence when
    that runs on (transformers' "Unrecognized model" lists every model type it knows: 5 KB)."""
    line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if len(line) > limit:
        sentence = line.split(". ")[0]
        line = sentence if len(sentence) <= limit else sentence[:limit] + "..."
    return line


@contextlib.contextmanager
def quiet_libraries():
    """The exporters' warnings and advice ("save it into the model folder") are not for users."""
    loggers = [logging.getLogger(name) for name in ("sentence_transformers", "transformers", "optimum", "root")]
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


def _quantization_config() -> str:
    """The int8 kernel family this CPU runs best (all of them run on any x86-64 CPU)."""
    if platform.machine().lower() in ("arm64", "aarch64"):
        return "arm64"
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        flags = ""
    return "avx512_vnni" if "avx512_vnni" in flags else "avx2"


def _export(path: Path, folder: Path, int8: bool) -> None:
    from sentence_transformers import (SentenceTransformer, export_dynamic_quantized_onnx_model,
                                       export_optimized_onnx_model)

    kind = "int8" if int8 else "fp32"
    tmp = folder.with_name(f"{folder.name}.partial-{os.getpid()}")  # two processes may export at once
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with quiet_libraries():
            model = SentenceTransformer(str(path), device="cpu", backend="onnx", local_files_only=True)
            model.save(str(tmp))
            if int8:
                export_dynamic_quantized_onnx_model(model, _quantization_config(), str(tmp))
            else:
                with contextlib.suppress(Exception):  # an architecture optimum cannot fuse: plain fp32
                    export_optimized_onnx_model(model, "O3", str(tmp))
        if int8 or (tmp / "onnx" / OPTIMISED).is_file():
            (tmp / "onnx" / "model.onnx").unlink(missing_ok=True)  # unused beside the one kept
        if export_file(tmp, int8) is None:
            raise ModelError(f"{kind} ONNX export of {path} wrote no model file")
        if export_file(folder, int8) is None:  # else another process finished first: its export serves
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(f"cannot export {path} to {kind} ONNX into {folder}: {reason_line(exc)}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


__all__ = ["onnx_model", "find_export", "export_file", "reason_line", "quiet_libraries"]
