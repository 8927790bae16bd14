"""Passages' vectors from an ONNX export (fp32 or int8) with onnxruntime and the tokenizer alone: what the
`onnx` and `onnx-int8` embedder backends index with, without importing torch or sentence-transformers (their
import was most of the indexer's "loading the embedder" phase on a small CPU).

The same arithmetic as sentence-transformers' ONNX backend: texts tokenised (truncated at the
source model's max_seq_length), run in batches of similar length (little padding), token
vectors mean-pooled over the attention mask and L2-normalised. tests/models/test_embedder_choice.py holds
the two to the same vectors.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from models.errors import ModelError

# Texts per onnxruntime call. Sorted by length, small batches pad little and stay in a CPU's caches:
# on 2 cores 8 a call ran the fp32 export 1.2-1.5x faster than 32, 64 or 128 (and int8 no slower).
BATCH = 8


def _max_length(source: Path) -> int:
    import json

    try:
        config = json.loads((Path(source) / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(config.get("max_seq_length") or 512)
    except (OSError, ValueError, TypeError):
        return 512


def open_onnx(onnx_file: Path, tokenizer_file: Path, threads: int, max_length: int):
    """(session, tokenizer) of an ONNX export on the CPU, the tokenizer truncating at
    `max_length` and padding nothing; a file that will not load is one ModelError line."""
    import onnxruntime
    from tokenizers import Tokenizer

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = onnxruntime.InferenceSession(str(onnx_file), sess_options=options,
                                               providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
    except Exception as exc:  # onnxruntime and tokenizers raise their own kinds
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
        raise ModelError(f"cannot load embedding model {onnx_file}: {first}") from None
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length)
    return session, tokenizer


class OnnxPassageEncoder:
    """encode(texts) -> normalised vectors (rows), batched; `threads` onnxruntime threads."""

    def __init__(self, source: Path, onnx_file: Path, tokenizer_file: Path, threads: int = 1, batch: int = BATCH):
        self.session, self.tokenizer = open_onnx(onnx_file, tokenizer_file, threads, _max_length(source))
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.batch = batch

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out: list[np.ndarray | None] = [None] * len(encodings)
        for start in range(0, len(order), self.batch):
            part = order[start:start + self.batch]
            for i, vector in zip(part, self._run([encodings[i] for i in part])):
                out[i] = vector
        return np.stack(out).astype(np.float32, copy=False)

    def _run(self, encodings) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = e.ids, e.attention_mask, e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        tokens = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (tokens * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
