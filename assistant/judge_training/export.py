"""A Hugging Face T5 checkpoint folder -> the ONNX judge folder (optionally int8), registered.

optimum exports encoder, decoder, decoder-with-past and a merged decoder; only the encoder
and the merged decoder (which serves both scoring and cached generation) are kept.
"""
from __future__ import annotations

import json
import logging
import shutil
import tempfile
from pathlib import Path

from models.errors import AssistantError
from models.t5_onnx import (CALIBRATION, CONFIG_FILES, ONNX_FILES, TOKENIZER_EXTRAS, TOKENIZER_FILES,
                            Calibration, check_folder)

_T5_TYPES = {"t5", "mt5", "umt5"}


def check_checkpoint(checkpoint: Path) -> Path:
    checkpoint = Path(checkpoint).expanduser()
    config = checkpoint / "config.json"
    if not checkpoint.is_dir():
        raise AssistantError(f"no such checkpoint folder: {checkpoint} (give a Hugging Face T5 model folder)")
    try:
        model_type = json.loads(config.read_text(encoding="utf-8")).get("model_type")
    except FileNotFoundError:
        raise AssistantError(f"{checkpoint} has no config.json; not a Hugging Face model folder") from None
    except (OSError, ValueError) as exc:
        raise AssistantError(f"cannot read {config}: {exc}") from None
    if model_type not in _T5_TYPES:
        raise AssistantError(f"{checkpoint} holds a {model_type!r} model; the judge needs a T5 "
                             f"(e.g. google/flan-t5-large)")
    if not any((checkpoint / name).is_file() for name in TOKENIZER_FILES):
        raise AssistantError(f"{checkpoint} has no tokenizer (tokenizer.json or spiece.model)")
    return checkpoint


def default_out(data_dir: Path, checkpoint: Path, int8: bool) -> Path:
    return Path(data_dir) / "judges" / (checkpoint.resolve().name + ("-int8" if int8 else ""))


def export_judge(checkpoint: Path, out: Path, int8: bool = False) -> Path:
    """Write the judge folder `out` (replacing a previous judge there) and return it."""
    checkpoint = check_checkpoint(checkpoint)
    out = Path(out).expanduser()
    if out.exists() and any(out.iterdir()) and not (out / CALIBRATION).is_file():
        raise AssistantError(f"{out} exists and is not a judge folder; choose an empty --out folder")
    out.mkdir(parents=True, exist_ok=True)
    for stale in list(out.glob("*.onnx_data")) + list(out.glob("*.onnx.data")):  # an earlier export's
        stale.unlink()
    with tempfile.TemporaryDirectory(prefix="judge-export-", dir=out.parent) as tmp:
        _onnx_export(checkpoint, Path(tmp))
        for name in ONNX_FILES:
            target = out / name
            target.unlink(missing_ok=True)
            if int8:
                _quantize(Path(tmp) / name, target)
            else:  # a model over 2 GB keeps its weights in a data file beside the graph
                for part in Path(tmp).glob(name + "*"):
                    shutil.move(str(part), out / part.name)
        for name in CONFIG_FILES + TOKENIZER_FILES + TOKENIZER_EXTRAS:
            if (Path(tmp) / name).is_file():
                shutil.copy2(Path(tmp) / name, out / name)
    Calibration(int8=int8, source=str(checkpoint.resolve())).save(out)
    return check_folder(out)


def _onnx_export(checkpoint: Path, tmp: Path) -> None:
    from optimum.exporters.onnx import main_export

    logging.getLogger("optimum").setLevel(logging.ERROR)
    try:
        main_export(str(checkpoint), output=tmp, task="text2text-generation-with-past", device="cpu",
                    local_files_only=True)
    except Exception as exc:  # optimum raises many kinds; the user needs one line
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise AssistantError(f"ONNX export of {checkpoint} failed: {first}") from None
    missing = [name for name in ONNX_FILES if not (tmp / name).is_file()]
    if missing:
        raise AssistantError(f"ONNX export of {checkpoint} produced no {', '.join(missing)}")


def _quantize(source: Path, target: Path) -> None:
    """Dynamic int8 weights (MatMul/Gather), activations quantized at run time: no calibration set."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    size = sum(p.stat().st_size for p in source.parent.glob(source.name + "*"))
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # "consider pre-processing" warnings, once per file
    try:  # int8 weights are a quarter of fp32: only a model over ~8 GB needs external data
        quantize_dynamic(source, target, weight_type=QuantType.QInt8,
                         use_external_data_format=size > 7_000_000_000)
    finally:
        root.setLevel(level)
