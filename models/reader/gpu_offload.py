"""How many of the reader's layers go to a GPU: all of them (the default) where the installed
llama-cpp-python was built with a GPU backend, none on a CPU-only build.

The build is read from its files (llama-cpp-python installs one libggml-<backend> library per
backend beside libllama), not by loading llama.cpp: `models list` shows the reader's device
without paying for the native library. A GPU build on a machine whose GPU is missing still loads:
llama.cpp then finds no device and keeps every layer on the CPU.
"""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

GPU_BACKENDS = ("cuda", "metal", "vulkan", "hip", "sycl", "musa", "opencl", "cann")


@functools.lru_cache(maxsize=1)
def gpu_backend(package: str = "llama_cpp") -> str | None:
    """The GPU backend the installed llama.cpp was built with ("cuda", "metal", ...), or None."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        names = [path.name.lower() for path in (Path(folder) / "lib").glob("*ggml-*")]
        for backend in GPU_BACKENDS:
            if any(name.startswith((f"libggml-{backend}.", f"ggml-{backend}.")) for name in names):
                return backend
    return None


def gpu_layers(requested: int, backend: str | None = None) -> int:
    """The n_gpu_layers llama.cpp gets: `requested` (-1: all) with a GPU build, else 0, so that a
    CPU build is loaded and cached exactly as before the default became -1."""
    backend = backend if backend is not None else gpu_backend()
    return requested if requested and backend else 0


def describe(requested: int) -> str:
    """The reader's device for `models list`: "cpu", or "gpu (cuda, all layers)"."""
    backend = gpu_backend()
    layers = gpu_layers(requested, backend)
    if not layers:
        return "cpu" if requested == 0 or backend else "cpu (llama-cpp-python built without GPU support)"
    return f"gpu ({backend}, {'all' if layers < 0 else layers} layers)"
