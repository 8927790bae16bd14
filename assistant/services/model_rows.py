"""Which model serves each role (reader, embedder, judge, relevance), with its file, size, backend
and device: what `assistant models list` shows, built here so that any front end can show it."""
from __future__ import annotations

from pathlib import Path

from models.config import Settings
from models.errors import AssistantError


def _size(path: Path) -> str:
    from models.judges.t5_onnx import folder_size

    from ..sizes import human_size

    return human_size(folder_size(path) if path.is_dir() else path.stat().st_size)


def _reader_row(settings) -> dict:
    from models.registry import reader_extra_buffers, reader_path

    from models.reader.gpu_offload import describe

    path = reader_path(settings)
    device = describe(settings.n_gpu_layers)
    return {"model": path.stem, "file": str(path), "size": _size(path), "backend": "llama.cpp", "device": device,
            "buffers": "extra buffers " + reader_extra_buffers(settings).label}


def _embedder_row(settings) -> dict:
    from models.registry import embedder_path

    path = embedder_path(settings)
    name = path.name if settings.embedder else "all-MiniLM-L6-v2 (bundled)"  # its folder is just "model"
    from models.embedder_choice import resolve_backend

    backend = resolve_backend(settings)
    shown = f"{backend} (auto)" if settings.embedder_backend == "auto" else backend
    return {"model": name, "file": str(path), "size": _size(path),
            "backend": shown, "device": _embedder_device(settings, backend)}


def _embedder_device(settings, backend: str) -> str:
    """Without importing torch (listing stays light): what `auto` will pick is said, not probed."""
    if backend != "torch" and settings.embedder_device == "auto":
        return "cpu"
    if settings.embedder_device == "auto":
        return "auto (a GPU when torch sees one, else cpu; questions: cpu)"
    return f"{settings.embedder_device} (questions: cpu)"


def _judge_row(settings) -> dict:
    if settings.judge != "t5":
        row = _reader_row(settings)
        return {**row, "model": f"prompted reader ({row['model']})"}
    from models.judges.t5_device import placement
    from models.judges.t5_onnx import Calibration, check_folder

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
    from models.judges.relevance import read_folder
    from models.judges.t5_device import placement
    from models.registry import relevance_judge_path

    # its files read, not the model loaded: listing should not pay for onnxruntime
    folder, judge, selector = read_folder(relevance_judge_path(settings))
    return {"model": f"trained cross-encoder ({judge.get('name', folder.name)})", "file": str(folder),
            "size": _size(folder), "backend": "onnxruntime int8", "device": placement().device,
            # the bar the trace shows: the selector's when it ranks the pool (its scores are another scale)
            "threshold": (f"{selector.threshold:.3g} (the passage selector's score, which ranks the pool; "
                          f"the judge alone: {judge['threshold']:.3g})" if selector
                          else f"{judge['threshold']:.3g}"),
            "reads": f"top {settings.min_passages}-{settings.max_passages} of a pool of {settings.pool}"}


ROLES = (("reader", _reader_row), ("embedder", _embedder_row), ("judge", _judge_row), ("relevance", _relevance_row))


def model_rows(settings: Settings) -> list[tuple[str, dict | str]]:
    """(role, its row) per role; the row is the error line when the role's model is missing."""
    rows: list[tuple[str, dict | str]] = []
    for role, row_of in ROLES:
        try:
            rows.append((role, row_of(settings)))
        except AssistantError as exc:
            rows.append((role, str(exc)))
    return rows
