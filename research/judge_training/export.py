"""A Hugging Face T5 checkpoint folder -> the ONNX judge folder (optionally int8), registered.

optimum exports encoder, decoder, decoder-with-past and a merged decoder; only the encoder
and the merged decoder (which serves both scoring and cached generation) are kept.
"""
from __future__ import annotations

import json
import logging
import shutil
import tempfile
import warnings
from pathlib import Path

from models.errors import AssistantError
from models.judges.t5_onnx import (CALIBRATION, CONFIG_FILES, ONNX_FILES, TOKENIZER_EXTRAS, TOKENIZER_FILES,
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


def export_judge(checkpoint: Path, out: Path, int8: bool = False, source: str | None = None) -> Path:
    """Write the judge folder `out` (replacing a previous judge there) and return it."""
    checkpoint = check_checkpoint(checkpoint)
    out = _prepare(out)
    with tempfile.TemporaryDirectory(prefix="judge-export-", dir=out.parent) as tmp:
        _onnx_export(checkpoint, Path(tmp))
        _install(Path(tmp), out, int8=int8, move=True)
    Calibration(int8=int8, source=source or str(checkpoint.resolve())).save(out)
    return check_folder(out)


def quantize_judge(folder: Path, out: Path) -> Path:
    """An int8 copy of an exported fp32 judge folder, without exporting again.

    Its thresholds are the fp32 ones; quantization shifts scores, so calibrate it again."""
    folder = check_folder(folder)
    calibration = Calibration.load(folder)
    if calibration.int8:
        raise AssistantError(f"{folder} is already an int8 judge")
    out = _prepare(out)
    _install(folder, out, int8=True, move=False)
    calibration.int8 = True
    calibration.save(out)
    return check_folder(out)


def _prepare(out: Path) -> Path:
    out = Path(out).expanduser()
    if out.exists() and any(out.iterdir()) and not (out / CALIBRATION).is_file():
        raise AssistantError(f"{out} exists and is not a judge folder; choose an empty --out folder")
    out.mkdir(parents=True, exist_ok=True)
    for stale in list(out.glob("*.onnx_data")) + list(out.glob("*.onnx.data")):  # an earlier export's
        stale.unlink()
    return out


def _install(source: Path, out: Path, int8: bool, move: bool) -> None:
    """The files inference needs, from an export (or judge) folder into `out`."""
    for name in ONNX_FILES:
        target = out / name
        target.unlink(missing_ok=True)
        if int8:
            _quantize(source / name, target)
            continue
        for part in source.glob(name + "*"):  # a model over 2 GB keeps its weights in a data file beside the graph
            (shutil.move if move else shutil.copy2)(str(part), out / part.name)
    for name in CONFIG_FILES + TOKENIZER_FILES + TOKENIZER_EXTRAS:
        if (source / name).is_file():
            shutil.copy2(source / name, out / name)


def _onnx_export(checkpoint: Path, tmp: Path) -> None:
    onnx_export(checkpoint, tmp, task="text2text-generation-with-past")
    missing = [name for name in ONNX_FILES if not (tmp / name).is_file()]
    if missing:
        raise AssistantError(f"ONNX export of {checkpoint} produced no {', '.join(missing)}")


def onnx_export(checkpoint: Path, tmp: Path, task: str) -> None:
    """optimum's export of `checkpoint` into `tmp`, quietly, failing as one AssistantError line."""
    from optimum.exporters.onnx import main_export

    chatty = [logging.getLogger(name) for name in ("optimum", "transformers")]
    levels = [logger.level for logger in chatty]
    for logger in chatty:  # deprecation notes from inside optimum are not the user's business
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            # tracer warnings (T5's Python control flow, BERT's mask arithmetic) are expected
            warnings.simplefilter("ignore")
            # optimum's validation only logs tolerance misses (1e-4 is usual for T5) and would run
            # every submodel once more in torch and onnxruntime; a broken export fails to load.
            main_export(str(checkpoint), output=tmp, task=task, device="cpu", local_files_only=True,
                        do_validation=False)
    except Exception as exc:  # optimum raises many kinds; the user needs one line
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise AssistantError(f"ONNX export of {checkpoint} failed: {first}") from None
    finally:
        for logger, level in zip(chatty, levels):
            logger.setLevel(level)


def _quantize(source: Path, target: Path) -> None:
    """Dynamic int8 weights (MatMul/Gather), activations quantized at run time: no calibration set."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    size = sum(p.stat().st_size for p in source.parent.glob(source.name + "*"))
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # "consider pre-processing" warnings, once per file
    try:  # int8 weights are a quarter of fp32: only a model over ~8 GB needs external data
        # The merged decoder keeps all its MatMuls inside If branches: without EnableSubgraph
        # they stay fp32 and only the encoder would be quantized.
        quantize_dynamic(source, target, weight_type=QuantType.QInt8,
                         use_external_data_format=size > 7_000_000_000, extra_options={"EnableSubgraph": True})
    finally:
        root.setLevel(level)

