"""The exported T5 judge folder: which files it holds, its calibration, and checking it.

Layout (written by `assistant models export-judge`):
    encoder_model.onnx, decoder_model_merged.onnx   one decoder serves scoring and cached generation
    config.json, generation_config.json, tokenizer files
    judge.json   thresholds calibrated on held-out distilled data, and whether weights are int8
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from models.errors import ModelError

ENCODER = "encoder_model.onnx"
DECODER = "decoder_model_merged.onnx"
ONNX_FILES = (ENCODER, DECODER)
CALIBRATION = "judge.json"
CONFIG_FILES = ("config.json",)
TOKENIZER_FILES = ("tokenizer.json", "spiece.model")  # either one is enough
TOKENIZER_EXTRAS = ("tokenizer_config.json", "special_tokens_map.json", "generation_config.json")
DEFAULT_THRESHOLD = 0.5
_HOW = "export one with `assistant models export-judge CHECKPOINT_DIR`"


@dataclass
class Calibration:
    knows_threshold: float = DEFAULT_THRESHOLD
    relevance_threshold: float = DEFAULT_THRESHOLD
    int8: bool = False
    source: str = ""  # the checkpoint it was exported from
    held_out: dict = field(default_factory=dict)  # per task: examples and accuracy at the threshold

    def save(self, folder: Path) -> None:
        (Path(folder) / CALIBRATION).write_text(json.dumps({"format": 1, **asdict(self)}, indent=2) + "\n",
                                                encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> "Calibration":
        path = Path(folder) / CALIBRATION
        if not path.is_file():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            known = {k: data[k] for k in ("knows_threshold", "relevance_threshold", "int8", "source",
                                          "held_out") if k in data}
            calibration = cls(**known)
            for name in ("knows_threshold", "relevance_threshold"):
                value = float(getattr(calibration, name))
                if not 0.0 <= value <= 1.0:
                    raise ValueError(f"{name} {value} is outside [0, 1]")
                setattr(calibration, name, value)
            return calibration
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise ModelError(f"cannot read the judge calibration {path}: {exc}") from None


def check_folder(folder: Path | str | None) -> Path:
    """The folder if it holds every file inference needs; else one clear ModelError."""
    if folder is None:
        raise ModelError(f"the T5 judge has no model folder: set judge_path, or {_HOW}")
    folder = Path(folder).expanduser()
    if not folder.exists():
        raise ModelError(f"T5 judge folder not found: {folder} ({_HOW})")
    if not folder.is_dir():
        raise ModelError(f"T5 judge path is not a folder: {folder} ({_HOW})")
    missing = [name for name in ONNX_FILES + CONFIG_FILES if not (folder / name).is_file()]
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        missing.append("tokenizer.json")
    if missing:
        raise ModelError(f"T5 judge folder {folder} is incomplete (missing {', '.join(missing)}); "
                         f"re-export it: {_HOW}")
    for name in ONNX_FILES:
        _check_onnx_header(folder / name)
    return folder


def _check_onnx_header(path: Path) -> None:
    """Cheap first check; a damaged file that passes it fails when its session is created."""
    try:
        with path.open("rb") as fh:
            head = fh.read(2)
    except OSError as exc:
        raise ModelError(f"cannot read T5 judge file {path}: {exc.strerror}") from None
    # An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
    if len(head) < 2 or head[0] != 0x08:
        raise ModelError(f"T5 judge file {path} is not an ONNX model (corrupt or truncated); re-export it: {_HOW}")


def corrupt(path: Path, exc: Exception) -> ModelError:
    first = (str(exc).splitlines() or [""])[0][:160]
    return ModelError(f"T5 judge folder {path} holds a damaged ONNX model ({first}); re-export it: {_HOW}")


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())
