"""A fine-tuned cross-encoder checkpoint -> the relevance judge folder: int8 ONNX + tokenizer + judge.json.

The graph is the encoder alone (token states out); the judge's head, a cosine and two numbers,
runs in numpy (models.judges.relevance), so a standard export serves it.

As for the T5 judge (export.py): optimum exports the graph, onnxruntime's dynamic quantization
makes its weights int8 (activations quantized at run time, so no calibration set is needed).
"""
from __future__ import annotations

import json
import logging
import shutil
import tempfile
from pathlib import Path

from models.errors import AssistantError

from .export import onnx_export
from models.judges.relevance import MODEL_FILE, SETTINGS_FILE, TOKENIZER_FILE

TOKENIZER_EXTRAS = ("tokenizer_config.json", "special_tokens_map.json", "vocab.txt", "config.json")


def prepare_out(out: Path) -> Path:
    """An empty folder, or a previous judge folder (replaced); anything else is refused."""
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise AssistantError(f"{out} is a file; --out needs a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / SETTINGS_FILE).is_file():
        raise AssistantError(f"{out} exists and is not a relevance judge folder; choose an empty --out folder")
    out.mkdir(parents=True, exist_ok=True)
    return out


def export_onnx(checkpoint: Path, out: Path, int8: bool = True) -> Path:
    """model.onnx (int8 unless told) and the tokenizer files into `out`."""
    out = prepare_out(out)
    with tempfile.TemporaryDirectory(prefix="relevance-export-", dir=out.parent) as tmp:
        onnx_export(checkpoint, Path(tmp), task="feature-extraction")
        exported = Path(tmp) / MODEL_FILE
        if not exported.is_file():
            raise AssistantError(f"ONNX export of {checkpoint} wrote no {MODEL_FILE}")
        (out / MODEL_FILE).unlink(missing_ok=True)
        if int8:
            _quantize(exported, out / MODEL_FILE)
        else:
            shutil.move(str(exported), out / MODEL_FILE)
        for name in (TOKENIZER_FILE,) + TOKENIZER_EXTRAS:
            if (Path(tmp) / name).is_file():
                shutil.copy2(Path(tmp) / name, out / name)
    return out


def _quantize(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # "consider pre-processing" advice, not the user's business
    try:
        quantize_dynamic(source, target, weight_type=QuantType.QInt8)
    finally:
        root.setLevel(level)


def write_settings(out: Path, settings: dict) -> Path:
    path = Path(out) / SETTINGS_FILE
    path.write_text(json.dumps({"format": 1, **settings}, indent=2) + "\n", encoding="utf-8")
    return path
