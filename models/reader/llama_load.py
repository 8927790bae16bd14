"""Loading a GGUF with llama.cpp so that it cannot crash the process on this CPU.

llama.cpp repacks weights into "extra buffer types" for faster matrix kernels. On Intel Xeons
with AMX the AMX buffers segfault on the first decode (llama.cpp #20824), for every model; with
`use_extra_bufts = False` the model runs normally. The choice per setting:

- "off": never use extra buffers; "on": always;
- "auto" (default): off on a CPU with AMX, on elsewhere (where the repacked kernels are faster).

Whatever the setting, the first use of a model on a CPU is checked in a child process
(`python -m models.reader.cpu_check`): a crash there becomes one error line, or, in "auto", the other
choice, instead of a core dump in the user's process. Results are cached in the data dir.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import platform
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from models.errors import ConfigError, ModelError

CHOICES = ("auto", "on", "off")
CHECK_TIMEOUT_S = 300  # a large model loads from a cold disk in well under this
CACHE_FILE = "reader-checks.json"
_patch_lock = threading.Lock()


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The CPU's feature flags (Linux /proc/cpuinfo); empty where unknown."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags") and ":" in line:
            return set(line.split(":", 1)[1].split())
    return set()


def cpu_has_amx(cpuinfo: str | None = None) -> bool:
    return bool({"amx_tile", "amx_int8", "amx_bf16"} & cpu_flags(cpuinfo))


def cpu_name(cpuinfo: str | None = None) -> str:
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return platform.processor() or platform.machine()
    for line in cpuinfo.splitlines():
        if line.startswith("model name") and ":" in line:
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def preferred_extra_buffers(setting: str, cpuinfo: str | None = None) -> bool:
    if setting not in CHOICES:
        raise ConfigError(f"reader_extra_buffers = {setting!r} is not one of {', '.join(CHOICES)}")
    if setting != "auto":
        return setting == "on"
    return not cpu_has_amx(cpuinfo)


@contextlib.contextmanager
def _model_params(extra_buffers: bool):
    """llama-cpp-python's Llama() takes its model params from llama_model_default_params() and
    has no argument for use_extra_bufts: hand it defaults with the field set, while it loads."""
    import llama_cpp.llama_cpp as native

    original = native.llama_model_default_params

    def defaults():
        params = original()
        params.use_extra_bufts = extra_buffers
        return params

    with _patch_lock:
        native.llama_model_default_params = defaults
        try:
            yield
        finally:
            native.llama_model_default_params = original


def load_llama(path: Path, extra_buffers: bool, **kwargs):
    """A llama_cpp.Llama with the given extra-buffer choice (other kwargs as Llama's)."""
    from llama_cpp import Llama

    with _model_params(extra_buffers):
        return Llama(model_path=str(path), **kwargs)


@dataclass
class Choice:
    extra_buffers: bool
    reason: str  # shown by `models list`

    @property
    def label(self) -> str:
        return ("on" if self.extra_buffers else "off") + f" ({self.reason})"


def _cache_key(path: Path, n_gpu_layers: int) -> str:
    try:  # the installed version, not the module's: importing llama_cpp costs ~0.5 s
        version = importlib.metadata.version("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    stat = path.stat()
    parts = [str(path.resolve()), str(stat.st_size), str(int(stat.st_mtime)), cpu_name(),
             ",".join(sorted(cpu_flags())), version, str(bool(n_gpu_layers))]
    return hashlib.sha1("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:20]


def _read_cache(cache_dir: Path | None) -> dict:
    if cache_dir is None:
        return {}
    try:
        data = json.loads((cache_dir / CACHE_FILE).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_cache(cache_dir: Path | None, cache: dict) -> None:
    if cache_dir is None:
        return
    with contextlib.suppress(OSError):  # a read-only data dir only costs a check next time
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_dir / (CACHE_FILE + ".tmp")
        tmp.write_text(json.dumps(cache, indent=1), encoding="utf-8")
        os.replace(tmp, cache_dir / CACHE_FILE)


def run_check(path: Path, extra_buffers: bool, n_gpu_layers: int = 0) -> str | None:
    """Load and decode in a child process; None when it worked, else what went wrong."""
    command = [sys.executable, "-m", "models.reader.cpu_check", str(path), "1" if extra_buffers else "0",
               str(n_gpu_layers)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")]))
    try:
        done = subprocess.run(command, capture_output=True, timeout=CHECK_TIMEOUT_S, env=env,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None  # slow is not broken: use the choice, check again next time
    except OSError:  # the child cannot start (e.g. the interpreter's path is not executable for this
        return None  # user): that says nothing about the model; load it in-process as chosen
    if done.returncode == 0:
        return None
    if done.returncode < 0:
        try:
            return f"crashed with {signal.Signals(-done.returncode).name}"
        except ValueError:
            return f"crashed with signal {-done.returncode}"
    tail = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return tail[-1] if tail else f"exited with status {done.returncode}"


def choose_extra_buffers(path: Path, setting: str = "auto", n_gpu_layers: int = 0,
                         cache_dir: Path | None = None, check=run_check) -> Choice:
    """The extra-buffer choice for this model on this CPU, self-checked once and cached."""
    preferred = preferred_extra_buffers(setting)
    why = "setting" if setting != "auto" else ("CPU has AMX" if not preferred else "CPU without AMX")
    key = _cache_key(path, n_gpu_layers)
    cache = _read_cache(cache_dir)
    entry = cache.get(key, {})
    if entry.get("setting") == setting and "extra_buffers" in entry:
        return Choice(bool(entry["extra_buffers"]), entry.get("reason", why))
    candidates = [preferred] if setting != "auto" else [preferred, not preferred]
    failures = []
    for extra in candidates:
        problem = check(path, extra, n_gpu_layers)
        if problem is None:
            reason = why if not failures else f"extra buffers {failures[0]} on this CPU"
            cache[key] = {"setting": setting, "extra_buffers": extra, "reason": reason}
            _write_cache(cache_dir, cache)
            return Choice(extra, reason)
        failures.append(problem)
    tried = " and ".join(f"extra buffers {'on' if e else 'off'}: {p}" for e, p in zip(candidates, failures))
    hint = ("set reader_extra_buffers = \"off\" (or \"auto\") in config.toml"
            if setting == "on" else "try another GGUF file (--reader) or another llama-cpp-python build")
    raise ModelError(f"reader model {path.name} does not run on this CPU ({cpu_name()}): {tried}; {hint}")
