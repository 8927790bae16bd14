"""`assistant models ...`: which model serves each role, and turning a T5 checkpoint into the judge."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

models_app = typer.Typer(help="Show the models in use; export a T5 checkpoint as the judge.",
                         no_args_is_help=True)


def _size(path: Path) -> str:
    from models.t5_onnx import folder_size

    from ..sizes import human_size

    return human_size(folder_size(path) if path.is_dir() else path.stat().st_size)


def _reader_row(settings) -> dict:
    from models.registry import reader_extra_buffers, reader_path

    path = reader_path(settings)
    device = f"gpu ({settings.n_gpu_layers} layers)" if settings.n_gpu_layers else "cpu"
    return {"model": path.stem, "file": str(path), "size": _size(path), "backend": "llama.cpp", "device": device,
            "buffers": "extra buffers " + reader_extra_buffers(settings).label}


def _embedder_row(settings) -> dict:
    from models.registry import embedder_path

    path = embedder_path(settings)
    device = "cpu"
    if settings.embedder_backend == "torch":
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    name = path.name if settings.embedder else "all-MiniLM-L6-v2 (bundled)"  # its folder is just "model"
    return {"model": name, "file": str(path), "size": _size(path),
            "backend": settings.embedder_backend, "device": device}


def _judge_row(settings) -> dict:
    if settings.judge != "t5":
        row = _reader_row(settings)
        return {**row, "model": f"prompted reader ({row['model']})"}
    from models.t5_device import placement
    from models.t5_onnx import Calibration, check_folder

    folder = check_folder(settings.judge_path)
    calibration = Calibration.load(folder)
    where = placement()
    row = {"model": f"T5 ({folder.name})", "file": str(folder), "size": _size(folder),
           "backend": "onnxruntime" + (" int8" if calibration.int8 else " fp32"),
           "device": where.device + (f" ({where.reason})" if where.reason else ""),
           "thresholds": f"know {calibration.knows_threshold:.3f}, relevance {calibration.relevance_threshold:.3f}"}
    if calibration.source:  # a checkpoint path, or "<base> fine-tuned on <data>"
        row["source"] = calibration.source
    return row


def _relevance_row(settings) -> dict:
    """Who judges passage relevance: the trained cross-encoder (shipped or configured), or the judge."""
    if settings.relevance_judge != "trained":
        return {"model": "the judge above", "setting": 'relevance_judge = "judge"'}
    from models.registry import get_relevance_judge, relevance_judge_path

    folder = relevance_judge_path(settings)
    judge = get_relevance_judge(settings)
    return {"model": f"trained cross-encoder ({judge.settings.get('name', folder.name)})", "file": str(folder),
            "size": _size(folder), "backend": "onnxruntime int8", "device": judge.device,
            "threshold": f"{judge.threshold:.3f}",
            "reads": f"top {settings.min_passages}-{settings.max_passages} of a pool of {settings.pool}"}


@models_app.command("list")
def list_models() -> None:
    """Each role's model, file, size, backend and device.

    Example: assistant models list
    """
    from models.config import load_settings
    from models.errors import AssistantError

    settings = load_settings()
    for role, row_of in (("reader", _reader_row), ("embedder", _embedder_row), ("judge", _judge_row),
                         ("relevance", _relevance_row)):
        try:
            row = row_of(settings)
        except AssistantError as exc:
            typer.echo(f"{role:9} missing: {exc}")
            continue
        typer.echo(f"{role:9} {row.pop('model')}")
        for key, value in row.items():
            typer.echo(f"  {key:10} {value}")


@models_app.command("export-judge")
def export_judge(
    checkpoint: Path = typer.Argument(..., help="A Hugging Face T5 folder (config.json, weights, tokenizer)."),
    int8: bool = typer.Option(False, "--int8", help="Dynamic int8 quantization: ~4x smaller, faster on CPU."),
    out: Optional[Path] = typer.Option(None, "--out", help="Judge folder (default: <data dir>/judges/NAME)."),
    use: bool = typer.Option(True, "--use/--no-use", help="Register it as the judge in config.toml."),
) -> None:
    """Export a T5 checkpoint to ONNX (only the files inference needs) and make it the judge.

    Example: assistant models export-judge ~/models/flan-t5-large --int8
    """
    from models.config import load_settings

    from ..judge_training.export import default_out, export_judge as export, register

    settings = load_settings(config_may_be_missing=True)  # `register` may create the config file
    folder = export(checkpoint, out or default_out(settings.data_dir, checkpoint, int8), int8=int8)
    from models.t5_onnx import folder_size

    typer.echo(f"exported {'int8' if int8 else 'fp32'} judge: {folder} ({folder_size(folder) / 2**20:.1f} MB)")
    if use:
        typer.echo(f"registered as the judge in {register(folder)} (judge = \"t5\")")
