"""`assistant models ...`: which model serves each role, and turning a T5 checkpoint into the judge."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

models_app = typer.Typer(help="Show the models in use; export a T5 checkpoint as the judge.",
                         no_args_is_help=True)


@models_app.command("list")
def list_models() -> None:
    """Each role's model, file, size, backend and device.

    Example: assistant models list
    """
    from models.config import load_settings

    from .. import service

    for role, row in service.model_rows(load_settings()):
        if isinstance(row, str):
            typer.echo(f"{role:9} missing: {row}")
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
