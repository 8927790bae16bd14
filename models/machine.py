"""What this machine offers a reader: its RAM and, when one is found, an NVIDIA GPU's memory."""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass


@dataclass(frozen=True)
class Machine:
    ram_gb: float
    gpu_name: str = ""
    gpu_vram_gb: float = 0.0
    cores: int = 4

    def describe(self) -> str:
        gpu = f", GPU {self.gpu_name} ({self.gpu_vram_gb:.0f} GB)" if self.gpu_name else ", no GPU found"
        return f"{self.ram_gb:.0f} GB RAM, {self.cores} cores{gpu}"


def total_ram_gb() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):  # not POSIX: assume a modest laptop
        return 8.0


def nvidia_gpu() -> tuple[str, float]:
    """(name, memory in GB) of the largest NVIDIA GPU nvidia-smi lists; ("", 0) when there is none."""
    tool = shutil.which("nvidia-smi")
    if not tool:
        return "", 0.0
    try:
        out = subprocess.run([tool, "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return "", 0.0
    gpus = []
    for line in out.splitlines():
        name, _, mib = line.rpartition(",")
        try:
            gpus.append((name.strip(), float(mib) / 1024))
        except ValueError:
            continue
    return max(gpus, key=lambda g: g[1], default=("", 0.0))


def this_machine() -> Machine:
    name, vram = nvidia_gpu()
    return Machine(total_ram_gb(), name, vram, cores=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)


def llama_has_gpu() -> bool:
    """Whether the installed llama-cpp-python build can offload layers to a GPU."""
    try:
        import llama_cpp

        return bool(llama_cpp.llama_supports_gpu_offload())
    except (ImportError, AttributeError, OSError):
        return False
