"""The trained passage-relevance judge: a MiniLM cross-encoder, int8 ONNX, run by onnxruntime.

It reads a question and one passage together and gives P(the passage supports an answer), so a
wide pool from hybrid search can be ranked and cut to the few passages worth reading. The model
ships with the package (models/relevance_judge_model/, made by `assistant judge train-relevance`;
see the MODEL_CARD.md there). Folder layout:
    model.onnx       the int8 encoder: input_ids, attention_mask, token_type_ids -> last_hidden_state
    tokenizer.json   its fast tokenizer (plus the usual tokenizer side files)
    judge.json       the probability head (a, b), the keep-threshold calibrated on held-out
                     questions, max_length, provenance
Score: c = cosine(mean of the question's token states, mean of the passage's token states),
both from the joint encoding; P = sigmoid(a * c + b).
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Sequence

from models.errors import ModelError

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
SETTINGS_FILE = "judge.json"
REQUIRED_FILES = (MODEL_FILE, TOKENIZER_FILE, SETTINGS_FILE)
DEFAULT_MAX_LENGTH = 256
_HOW = "reinstall the package, or rebuild the judge with `assistant judge train-relevance --out FOLDER`"


def shipped_judge_path() -> Path:
    """The judge folder installed with the package."""
    return Path(__file__).resolve().parent.parent / "relevance_judge_model"


def passage_text(title: str, text: str) -> str:
    """A passage as the judge was trained to read it: its title, then its text."""
    title, text = title.strip(), " ".join(text.split())
    return f"{title}: {text}" if title else text


def check_folder(folder: Path | str) -> Path:
    """The folder if it holds every file the judge needs; else one clear ModelError."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ModelError(f"relevance judge folder not found: {folder} ({_HOW})")
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise ModelError(f"relevance judge file missing: {folder / name} ({_HOW})")
    return folder


def _read_settings(path: Path) -> dict:
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
        threshold = float(settings["threshold"])
        max_length = int(settings.get("max_length", DEFAULT_MAX_LENGTH))
        head = (float(settings["head"]["a"]), float(settings["head"]["b"]))
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
        raise ModelError(f"relevance judge file {path} is unreadable ({type(exc).__name__}: {exc}); {_HOW}") from None
    if not 0.0 <= threshold <= 1.0 or not 8 <= max_length <= 512:
        raise ModelError(f"relevance judge file {path} has threshold {threshold} / max_length {max_length} "
                         f"out of range; {_HOW}")
    return {**settings, "threshold": threshold, "max_length": max_length, "head": head}


def read_folder(folder: Path | str):
    """(folder, settings, selector or None) checked, without loading the model: what `models list`
    shows, and what the judge starts from."""
    folder = check_folder(folder)
    settings = _read_settings(folder / SETTINGS_FILE)
    selector = None
    if settings.get("selector"):  # judge.json names the second-stage selector when the folder ships one
        from models.judges.passage_selector import PassageSelector

        selector = PassageSelector(folder, settings["selector"])
    return folder, settings, selector


class RelevanceJudge:
    """score(question, passages) -> P(relevant) per passage, batched over the pool."""

    # One pair per run: int8 dynamic quantization scales activations per run over the whole batch
    # tensor, padding included, so batched scores depended on their batch-mates (a passage scored
    # lower beside shorter ones). One at a time is deterministic and wastes nothing on padding.
    def __init__(self, folder: Path | str, n_threads: int | None = None, batch_size: int = 1):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from models.judges.t5_device import CPU, CUDA, placement

        self.folder, self.settings, self.selector = read_folder(folder)
        self.batch_size = max(1, batch_size)
        try:
            self.tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER_FILE))
        except Exception as exc:  # tokenizers raises plain Exceptions for bad JSON
            first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
            raise ModelError(f"relevance judge file {self.folder / TOKENIZER_FILE} is unreadable ({first}); "
                             f"{_HOW}") from None
        self.tokenizer.enable_truncation(self.settings["max_length"])  # longest first: questions are short
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = n_threads or min(4, os.cpu_count() or 1)
        where = placement()
        providers = [CUDA, CPU] if where.provider == CUDA else [CPU]
        try:
            self.session = ort.InferenceSession(str(self.folder / MODEL_FILE), sess_options=options,
                                                providers=providers)
        except Exception as exc:  # onnxruntime raises its own kinds for damaged graphs
            first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
            raise ModelError(f"relevance judge file {self.folder / MODEL_FILE} is not a usable ONNX model "
                             f"({first}); {_HOW}") from None
        self.device = "cuda" if self.session.get_providers()[:1] == [CUDA] else "cpu"
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.name = f"{self.settings.get('name', self.folder.name)} ({self.device})"
        # and the chain scorer (the read set picked hop by hop) when the folder ships one
        self.chain = None
        if self.settings.get("chain"):
            from models.judges.chain_scorer import ChainScorer

            self.chain = ChainScorer(self.folder, self.settings["chain"])

    @property
    def threshold(self) -> float:
        """Keep a passage whose score is at least this (calibrated on held-out questions)."""
        return self.settings["threshold"]

    @property
    def sufficiency(self) -> tuple[int, float] | None:
        """(rank, cut): the kept passages hold all the support when the rank-th best score of the
        pool reaches the cut; None when this judge cannot say (no selector, or one without it)."""
        selector = self.selector
        if selector is None or selector.sufficient_threshold is None:
            return None
        return selector.sufficient_rank, selector.sufficient_threshold

    @property
    def max_length(self) -> int:
        return self.settings["max_length"]

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """P(relevant) for each passage (use passage_text(title, text) to build them), in order."""
        a, b = self.settings["head"]
        return [_sigmoid(a * c + b) for c in self.cosines(question, passages)]

    def cosines(self, question: str, passages: Sequence[str]) -> list[float]:
        """The raw score before the probability head (the head is fitted on these)."""
        import numpy as np

        if not passages:
            return []
        encodings = self.tokenizer.encode_batch([(question, p) for p in passages])
        # Similar lengths in one batch waste less on padding; results go back in input order.
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        scores = [0.0] * len(encodings)
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            arrays = {name: np.zeros((len(batch), width), dtype=np.int64)
                      for name in ("input_ids", "attention_mask", "token_type_ids")}
            for row, i in enumerate(batch):
                e = encodings[i]
                n = len(e.ids)
                arrays["input_ids"][row, :n] = e.ids
                arrays["attention_mask"][row, :n] = e.attention_mask
                arrays["token_type_ids"][row, :n] = e.type_ids
            feed = {name: value for name, value in arrays.items() if name in self.inputs}
            try:
                hidden = self.session.run(None, feed)[0]
            except Exception as exc:
                first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
                raise ModelError(f"relevance judge {self.folder} failed to run ({first}); {_HOW}") from None
            for i, value in zip(batch, segment_cosine(hidden, arrays["attention_mask"], arrays["token_type_ids"])):
                scores[i] = float(value)
        return scores


def segment_cosine(hidden, attention_mask, token_type_ids):
    """Per pair: cosine of the mean question-token state and the mean passage-token state."""
    import numpy as np

    mask = attention_mask[..., None].astype(np.float32)
    passage = token_type_ids[..., None].astype(np.float32) * mask
    question = mask - passage

    def mean(weights):
        pooled = (hidden * weights).sum(1) / np.maximum(weights.sum(1), 1.0)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)

    return (mean(question) * mean(passage)).sum(-1)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
