"""One question's vector without torch: a sentence-transformers BERT model's forward pass in numpy.

Why: a question is one short text, and importing torch and sentence-transformers (~6 s on 2 cores)
was most of what a cold `assistant ask` spent before its first model call. This reads the same
files (model.safetensors, tokenizer.json) and computes the same vector as sentence-transformers:
the BERT encoder, mean pooling over the tokens, L2 normalisation. Only a folder whose modules.json
says exactly that pipeline qualifies (`supported`); models.embedder uses sentence-transformers for
anything else and for batches of passages. tests/models/test_query_encoder.py holds the two to the same
vectors.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from models.errors import ModelError

_PIPELINE = ["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
             "sentence_transformers.models.Normalize"]
_OTHER_POOLING = ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                  "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")
WEIGHTS, TOKENIZER = "model.safetensors", "tokenizer.json"


def _json(path: Path) -> dict | list:
    return json.loads(path.read_text(encoding="utf-8"))


def supported(folder: Path) -> bool:
    """Whether the folder is a plain BERT with mean pooling and normalisation, in safetensors."""
    folder = Path(folder)
    try:
        modules = _json(folder / "modules.json")
        config = _json(folder / "config.json")
        pooling = _json(folder / modules[1]["path"] / "config.json")
    except (OSError, ValueError, TypeError, KeyError, IndexError):
        return False
    return ([m.get("type") for m in modules] == _PIPELINE and config.get("model_type") == "bert"
            and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and pooling.get("pooling_mode_mean_tokens") is True and not any(pooling.get(k) for k in _OTHER_POOLING)
            and (folder / WEIGHTS).is_file() and (folder / TOKENIZER).is_file())


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1e-7 (Abramowitz and Stegun 7.1.26): numpy has none, and scipy costs an import."""
    sign, x = np.sign(x), np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _mean_unit(tokens: np.ndarray) -> np.ndarray:
    """Mean pooling and L2 normalisation of one text's token vectors (no padding: every token counts)."""
    pooled = tokens.mean(0)
    return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)


class _OneTextAtATime:
    """encode(texts) -> one normalised vector per text, each text run alone (a question is one text)."""
    dim: int

    def _vector(self, text: str) -> np.ndarray:
        raise NotImplementedError

    def encode(self, texts) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(text) for text in texts])


class QueryEncoder(_OneTextAtATime):
    """encode([text]) -> its normalised vector, as sentence-transformers gives it (to ~1e-6)."""

    def __init__(self, folder: Path):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.folder = Path(folder)
        config = _json(self.folder / "config.json")
        try:
            max_length = int(_json(self.folder / "sentence_bert_config.json").get("max_seq_length") or 512)
        except (OSError, ValueError):
            max_length = 512
        try:
            self.weights = load_file(str(self.folder / WEIGHTS))
            self.tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER))
        except Exception as exc:  # safetensors and tokenizers raise their own kinds
            first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
            raise ModelError(f"cannot load embedding model from {self.folder}: {first}") from None
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(min(max_length, int(config.get("max_position_embeddings", 512))))
        self.prefix = "bert." if "bert.embeddings.word_embeddings.weight" in self.weights else ""
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dim = int(config["hidden_size"])

    def _w(self, name: str) -> np.ndarray:
        return self.weights[self.prefix + name]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        # einsum's own loop, not BLAS: OpenBLAS threads spin against each other on a busy machine
        # (a question took seconds through `@`, a small fraction of that this way)
        return np.einsum("ij,kj->ik", x, self._w(name + ".weight")) + self._w(name + ".bias")

    def _vector(self, text: str) -> np.ndarray:
        ids = np.array(self.tokenizer.encode(text).ids, dtype=np.int64)
        n = len(ids)
        x = (self._w("embeddings.word_embeddings.weight")[ids] + self._w("embeddings.position_embeddings.weight")[:n]
             + self._w("embeddings.token_type_embeddings.weight")[0])
        x = _layer_norm(x, self._w("embeddings.LayerNorm.weight"), self._w("embeddings.LayerNorm.bias"), self.eps)
        size = self.dim // self.heads
        for i in range(self.layers):
            at = f"encoder.layer.{i}."
            q, k, v = (self._dense(x, at + f"attention.self.{part}").reshape(n, self.heads, size).transpose(1, 0, 2)
                       for part in ("query", "key", "value"))
            scores = np.einsum("hid,hjd->hij", q, k) / math.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attended = np.einsum("hij,hjd->ihd", scores / scores.sum(-1, keepdims=True), v).reshape(n, self.dim)
            x = _layer_norm(x + self._dense(attended, at + "attention.output.dense"),
                            self._w(at + "attention.output.LayerNorm.weight"),
                            self._w(at + "attention.output.LayerNorm.bias"), self.eps)
            inner = self._dense(x, at + "intermediate.dense")
            inner = 0.5 * inner * (1.0 + _erf(inner / math.sqrt(2.0)))  # exact GELU, as BERT's "gelu"
            x = _layer_norm(x + self._dense(inner, at + "output.dense"), self._w(at + "output.LayerNorm.weight"),
                            self._w(at + "output.LayerNorm.bias"), self.eps)
        return _mean_unit(x)


class OnnxQueryEncoder(_OneTextAtATime):
    """The same question vector from the int8 ONNX export the `onnx` embedder backend indexes with:
    onnxruntime and the tokenizer only (no torch), the export's token embeddings mean-pooled and
    normalised as sentence-transformers does. `source` is the model folder the export came from
    (it says the pooling, checked by `supported`, and the maximum length)."""

    def __init__(self, source: Path, onnx_file: Path, tokenizer_file: Path, threads: int = 1):
        from models.onnx_passages import _max_length, open_onnx

        # one short text: more threads only wait on each other
        self.session, self.tokenizer = open_onnx(onnx_file, tokenizer_file, threads, _max_length(source))
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.dim = int(_json(Path(source) / "config.json")["hidden_size"])

    def _vector(self, text: str) -> np.ndarray:
        encoding = self.tokenizer.encode(text)
        feed = {"input_ids": np.array([encoding.ids], dtype=np.int64),
                "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([encoding.type_ids], dtype=np.int64)}
        tokens = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0][0]
        return _mean_unit(tokens)
