"""Typed settings shared by the CLI, the TUI, evaluation and tests.

Values come from, in increasing priority: defaults, the TOML file `config.toml` in the
user's config directory (or $ASSISTANT_CONFIG), environment variables ASSISTANT_<FIELD>,
and explicit overrides (command-line options).
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

from .errors import ConfigError

APP_NAME = "offline-assistant"


def default_data_dir() -> Path:
    return Path(os.environ.get("ASSISTANT_DATA_DIR") or user_data_dir(APP_NAME))


@dataclass
class Settings:
    data_dir: Path = field(default_factory=default_data_dir)
    index: Path | None = None  # LanceDB folder; default: <data_dir>/index
    reader: Path | None = None  # GGUF file; default: the bundled SmolLM2
    embedder: Path | None = None  # sentence-transformers folder; default: bundled MiniLM
    embedder_backend: str = "torch"  # "torch" or "onnx" (int8 ONNX, opt-in)
    judge: str = "reader"  # "reader" (prompted reader) or "t5" (ONNX T5)
    judge_path: Path | None = None  # ONNX T5 folder when judge == "t5"
    n_ctx: int = 4096
    n_gpu_layers: int = 0
    n_threads: int | None = None
    # 10, not the usual 5: on HotpotQA hybrid top-10 holds both supporting paragraphs for 75% of
    # questions vs 46% at top-5, and Qwen 1.5B's plain-RAG EM rose 29.0 -> 39.0 on 100 questions
    # (EVALUATION.md), for twice the prompt tokens.
    k: int = 10
    depth: int = 3
    max_reader_calls: int = 60
    max_answer_tokens: int = 96

    @property
    def index_path(self) -> Path:
        return Path(self.index) if self.index else Path(self.data_dir) / "index"

    def with_overrides(self, **overrides) -> "Settings":
        clean = {k: v for k, v in overrides.items() if v is not None}
        return dataclasses.replace(self, **_coerce(clean))


def _coerce(values: dict) -> dict:
    types = {f.name: f.type for f in fields(Settings)}
    out = {}
    for key, value in values.items():
        if key not in types:
            raise ConfigError(f"unknown setting '{key}' (known: {', '.join(sorted(types))})")
        kind = str(types[key])
        try:
            if "Path" in kind:
                out[key] = Path(value).expanduser()
            elif kind.startswith("int"):
                out[key] = int(value)
            else:
                out[key] = str(value) if not isinstance(value, (int, float, bool)) else value
        except (TypeError, ValueError):
            raise ConfigError(f"setting '{key}' needs a {kind}, got {value!r}") from None
    return out


def config_file() -> Path:
    return Path(os.environ.get("ASSISTANT_CONFIG") or Path(user_config_dir(APP_NAME)) / "config.toml")


def load_settings(**overrides) -> Settings:
    values: dict = {}
    path = config_file()
    if path.is_file():
        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config file {path}: {exc}") from None
    for f in fields(Settings):
        env = os.environ.get(f"ASSISTANT_{f.name.upper()}")
        if env:
            values[f.name] = env
    values.update({k: v for k, v in overrides.items() if v is not None})
    return Settings().with_overrides(**values)
