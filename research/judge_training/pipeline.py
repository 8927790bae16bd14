"""`judge train` end to end: distilled data -> fine-tuned checkpoint -> ONNX -> calibrated folder."""
from __future__ import annotations

import tempfile
from pathlib import Path

from models.judges.t5_onnx import Calibration

from .calibrate import calibrate
from .data import read_examples, split_held_out
from .export import check_checkpoint, export_judge
from .train import TrainReport, fine_tune

HELD_OUT = 0.1


def train_judge(data: Path, base: Path, out: Path, epochs: int = 3, lr: float = 3e-4, batch_size: int = 8,
                int8: bool = False, save_checkpoint: Path | None = None, seed: int = 0,
                on_step=None) -> tuple[Path, TrainReport, Calibration]:
    examples = read_examples(data)
    check_checkpoint(base)  # fail before any training work
    train, held_out = split_held_out(examples, HELD_OUT)
    with tempfile.TemporaryDirectory(prefix="judge-checkpoint-") as tmp:
        checkpoint = Path(save_checkpoint) if save_checkpoint else Path(tmp)
        report = fine_tune(base, train, checkpoint, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed,
                           on_step=on_step)
        folder = export_judge(checkpoint, out, int8=int8, source=f"{Path(base).resolve()} fine-tuned on {data}")
    calibration = calibrate(folder, held_out)
    return folder, report, calibration
