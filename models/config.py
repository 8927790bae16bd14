"""Typed settings shared by the CLI, the TUI, evaluation and tests.

Values come from, in increasing priority: defaults, the TOML file `config.toml` in the
user's config directory (or $ASSISTANT_CONFIG), environment variables ASSISTANT_<FIELD>,
and explicit overrides (command-line options). Every value from any of them is checked
against what its field allows (declared once, beside the field): a bad one is a ConfigError
naming where it came from, the key, the value and the allowed range or values.
"""
from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Literal, get_args

from platformdirs import user_cache_dir, user_config_dir, user_data_dir

from models.errors import ConfigError

APP_NAME = "offline-assistant"

# The judges, declared once: the settings check, the registry, the app's form and the CLI's
# help all read these.
JudgeKind = Literal["reader", "t5"]  # yes/no per passage: the prompted reader or an ONNX T5
RelevanceJudgeKind = Literal["trained", "judge"]  # the shipped trained judge, or `judge`
JUDGE_KINDS: tuple[str, ...] = get_args(JudgeKind)
# How passages become vectors: the bundled MiniLM run by torch; as an ONNX export run by onnxruntime
# (`onnx`: torch's vectors to a cosine of 1.0000, 1.2x torch's speed in the indexer on 2 cores,
# loaded without torch; `onnx-int8`: quantised, faster again, the vectors only to a cosine of
# ~0.99); or a static model2vec table distilled from it (many times faster, lower retrieval
# quality; its own kind of vector: another index identity). "auto" (the setting's default,
# models/embedder_choice.py): onnx on a CPU, torch where a GPU can run it, and an index of
# onnx-int8 or model2vec vectors keeps its kind.
EmbedderBackend = Literal["torch", "onnx", "onnx-int8", "model2vec"]
EMBEDDER_BACKENDS: tuple[str, ...] = get_args(EmbedderBackend)
EmbedderBackendSetting = Literal["auto", "torch", "onnx", "onnx-int8", "model2vec"]
EMBEDDER_BACKEND_CHOICES: tuple[str, ...] = get_args(EmbedderBackendSetting)
# Where the transformer embedder runs: auto = a GPU when torch sees one (CUDA, or Apple's MPS), else
# the CPU. A question is always encoded on the CPU (numpy: one short text, no torch import).
EmbedderDevice = Literal["auto", "cpu", "cuda", "mps"]
EMBEDDER_DEVICES: tuple[str, ...] = get_args(EmbedderDevice)
RELEVANCE_JUDGE_KINDS: tuple[str, ...] = get_args(RelevanceJudgeKind)


def either(choices: tuple[str, ...]) -> str:
    """The choices as the user types them: "'reader' or 't5'"."""
    return " or ".join(f"'{choice}'" for choice in choices)


def default_data_dir() -> Path:
    return Path(os.environ.get("ASSISTANT_DATA_DIR") or user_data_dir(APP_NAME))


def default_cache_dir() -> Path:
    """What is made from the installed models and can be made again (the ONNX exports): one
    place for every data dir, so a second collection or a test's own data dir exports nothing."""
    return Path(os.environ.get("ASSISTANT_CACHE_DIR") or user_cache_dir(APP_NAME))


@dataclass(frozen=True)
class Allowed:
    """What one setting accepts: a whole-number range or a set of choices (paths: any)."""

    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.choices:
            return ", ".join(self.choices)
        if self.low is not None:
            return f"{self.low}-{self.high}" if self.low >= 0 else f"{self.low} to {self.high}"
        return ""


def _whole(low: int, high: int) -> dict:
    return {"allowed": Allowed(low, high)}


def _one_of(*choices: str) -> dict:
    return {"allowed": Allowed(choices=choices)}


@dataclass
class Settings:
    data_dir: Path = field(default_factory=default_data_dir)
    index: Path | None = None  # LanceDB folder; default: <data_dir>/index
    reader: Path | None = None  # GGUF file; default: the bundled SmolLM2
    embedder: Path | None = None  # sentence-transformers folder; default: bundled MiniLM
    embedder_backend: EmbedderBackendSetting = field(default="auto", metadata=_one_of(*EMBEDDER_BACKEND_CHOICES))
    embedder_device: EmbedderDevice = field(default="auto", metadata=_one_of(*EMBEDDER_DEVICES))
    judge: JudgeKind = field(default="reader", metadata=_one_of(*JUDGE_KINDS))  # prompted reader or ONNX T5
    judge_path: Path | None = None  # ONNX T5 folder when judge == "t5"
    # Who judges passage relevance: the trained judge that ships with the package (its passage
    # selector ranks a wide pool: models/judges/relevance.py), or `judge` above (the prompted
    # reader or the T5, yes/no per passage, which dropped answer-bearing passages: EVALUATION.md).
    relevance_judge: RelevanceJudgeKind = field(default="trained", metadata=_one_of(*RELEVANCE_JUDGE_KINDS))
    relevance_judge_path: Path | None = None  # a trained judge folder; default: the shipped one
    # With the trained judge, retrieval takes a wide pool, the judge ranks it and the reader
    # reads only the best: at least min_passages, at most max_passages, those above the threshold.
    pool: int = field(default=40, metadata=_whole(1, 200))
    max_passages: int = field(default=5, metadata=_whole(1, 50))
    min_passages: int = field(default=2, metadata=_whole(1, 50))
    # Below 512 tokens not even one passage and its instructions fit (llama.cpp would also
    # silently raise it to 256); 131072 is the longest context of common GGUF readers.
    n_ctx: int = field(default=4096, metadata=_whole(512, 131072))
    # -1: all layers on the GPU when the installed llama.cpp can offload (a CUDA, Metal or Vulkan
    # build of llama-cpp-python); a CPU-only build runs every layer on the CPU whatever this says.
    n_gpu_layers: int = field(default=-1, metadata=_whole(-1, 10000))
    n_threads: int | None = field(default=None, metadata=_whole(1, 1024))  # unset: one per core
    # llama.cpp's repacked weight buffers: auto = off on CPUs with AMX, where they segfault
    # (models/llama_load.py), on elsewhere.
    reader_extra_buffers: str = field(default="auto", metadata=_one_of("auto", "on", "off"))
    # 10, not the usual 5: the top 10 holds both supporting paragraphs of a multi-hop question far
    # more often than the top 5, and plain RAG answers more questions right with it, for twice the
    # prompt tokens (lab/notes/history.md, "Passages per question: k = 10 (Qwen)").
    k: int = field(default=10, metadata=_whole(1, 50))
    depth: int = field(default=3, metadata=_whole(0, 6))
    # 0 answers "unknown" with a note that the bound was hit: useless but explained, not silent
    max_reader_calls: int = field(default=60, metadata=_whole(1, 10000))  # 0 answered every question "unknown"
    max_answer_tokens: int = field(default=96, metadata=_whole(1, 8192))
    collection: str | None = None  # search only this collection of the index; None: all of them
    # A conversation thread: how much of its newest turns is read to open it or ask a follow-up
    # (older turns stay on disk, an export reads them), and the size at which its file moves
    # aside to a numbered part, so that no ask reads a huge thread whole.
    thread_read_kb: int = field(default=1024, metadata=_whole(16, 1048576))
    thread_file_mb: int = field(default=16, metadata=_whole(1, 4096))

    @property
    def index_path(self) -> Path:
        return Path(self.index) if self.index else Path(self.data_dir) / "index"

    def with_overrides(self, **overrides) -> "Settings":
        clean = {key: check_setting(key, value) for key, value in overrides.items() if value is not None}
        return dataclasses.replace(self, **clean)


def allowed(name: str) -> Allowed:
    """What setting `name` accepts (for CLI options and forms that mirror a setting)."""
    return _FIELDS[name].metadata.get("allowed", Allowed())


def check_setting(name: str, value, origin: str = "", from_text: bool = False):
    """`value` as setting `name` holds it, or a ConfigError: "<origin>: k = 0 is out of range (1-50)".

    from_text: the value is the text of an environment variable, to be parsed; otherwise it
    must already have the field's type (TOML and Python values: 10, not "10" or 10.0 or true).
    """
    where = f"{origin}: " if origin else ""
    if name not in _FIELDS:
        raise ConfigError(f"{where}unknown setting '{name}' (known: {', '.join(sorted(_FIELDS))})")
    kind = str(_FIELDS[name].type)
    rule = allowed(name)
    shown = value if from_text else _toml(value)

    def bad(problem: str) -> ConfigError:
        hint = f" ({rule.describe()})" if rule.describe() else ""
        return ConfigError(f"{where}{name} = {shown} {problem}{hint}")

    if "Path" in kind:
        if isinstance(value, Path):
            return value.expanduser()
        if not isinstance(value, str):
            raise bad("is not a path (write it as text in quotes)")
        if not value.strip():
            raise bad("is empty (leave the setting out for the default)")
        return Path(value).expanduser()
    if kind.startswith("int"):
        if from_text:
            try:
                value = int(str(value).strip())
            except ValueError:
                raise bad("is not a whole number") from None
        elif isinstance(value, bool) or not isinstance(value, int):
            raise bad("is not a whole number")
        if not rule.low <= value <= rule.high:
            raise bad("is out of range")
        return value
    if not isinstance(value, str):
        raise bad("is not text")
    if rule.choices and value not in rule.choices:
        raise bad("is not one of the allowed values")
    return value


def _toml(value) -> str:
    """A value as it would be written in config.toml."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, Path)):
        return json.dumps(str(value), ensure_ascii=False)
    return str(value)


_FIELDS = {f.name: f for f in fields(Settings)}


def config_file() -> Path:
    return Path(os.environ.get("ASSISTANT_CONFIG") or Path(user_config_dir(APP_NAME)) / "config.toml")


def _read_config_file(may_be_missing: bool) -> tuple[Path, dict]:
    """The config file's values; a missing default file is no error, a missing named one is
    (a typo in ASSISTANT_CONFIG must not silently mean defaults). `os.devnull` names none."""
    path = config_file().expanduser()
    named = bool(os.environ.get("ASSISTANT_CONFIG")) and not may_be_missing
    if path.is_dir():
        raise ConfigError(f"config file {path} is a folder; name a TOML file"
                          + (" in ASSISTANT_CONFIG" if named else " or remove the folder"))
    if not path.exists():
        if named:
            raise ConfigError(f"ASSISTANT_CONFIG names {path}, which does not exist; "
                              "create it or unset ASSISTANT_CONFIG")
        return path, {}
    try:
        return path, tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Notepad) is no error
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot read config file {path}: not valid TOML ({exc})") from None


def load_settings(*, config_may_be_missing: bool = False, **overrides) -> Settings:
    """Settings from every layer; config_may_be_missing: for commands that create the file."""
    path, from_file = _read_config_file(config_may_be_missing)
    values = {key: check_setting(key, value, str(path)) for key, value in from_file.items()}
    for name in _FIELDS:
        env = os.environ.get(f"ASSISTANT_{name.upper()}")
        if env:
            values[name] = check_setting(name, env, f"ASSISTANT_{name.upper()}", from_text=True)
    values.update({key: check_setting(key, value) for key, value in overrides.items() if value is not None})
    settings = dataclasses.replace(Settings(), **values)
    if settings.min_passages > settings.max_passages:  # each is in range; together they must agree
        raise ConfigError(f"min_passages = {settings.min_passages} is above max_passages = "
                          f"{settings.max_passages}; the reader reads at least min and at most max passages")
    return settings
