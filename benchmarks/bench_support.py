"""Shared helpers of the index benchmarks: synthetic text, a null embedder, timing, memory.

Each benchmark prints ratios against a baseline measured in the same run, because the machines
these run on are shared and noisy; absolute numbers are printed too, but only as context.
"""
from __future__ import annotations

import os
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python benchmarks/NAME.py` from a checkout
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

_WORDS = ("river bank water flow stone bridge city council history century king queen war treaty "
          "music album band guitar song film actor director novel author poem science theory atom "
          "energy planet orbit star galaxy telescope computer program language data network protocol "
          "garden tree flower seed soil rain weather climate ocean island harbour ship sail trade "
          "market price bread wheat farm village road railway station engine steam coal iron steel "
          "school student teacher lesson library museum painting sculpture church castle tower wall "
          "mountain valley glacier lake forest wolf bear deer eagle salmon otter heron beaver marsh").split()


def sentence(rng: random.Random, words: int) -> str:
    body = " ".join(rng.choice(_WORDS) for _ in range(words))
    return body[0].upper() + body[1:] + "."


def paragraph(rng: random.Random, words: int = 100) -> str:
    """About `words` words in sentences of 8-20 words: what a real ~100-word passage looks like."""
    out, count = [], 0
    while count < words:
        n = min(rng.randint(8, 20), words - count)
        out.append(sentence(rng, n))
        count += n
    return " ".join(out)


class NullEmbedder:
    """Constant unit vectors: takes embedding out of a measurement while keeping its shape."""

    model_id = "null:384"
    dim = 384

    def __init__(self):
        self._row = np.full(self.dim, 1 / np.sqrt(self.dim), dtype=np.float32)

    def encode(self, texts):
        return np.tile(self._row, (len(texts), 1))


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB.

    VmHWM belongs to the process's own address space; ru_maxrss would not do for a child
    process, because Linux carries the parent's peak over into it through fork and exec."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best_of(repeats: int, fn) -> float:
    """Fastest of `repeats` runs of fn() in seconds: the least disturbed by other load."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def machine_line() -> str:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        load = "load %.1f" % os.getloadavg()[0]
    except OSError:
        load = "load ?"
    return f"machine: {cores} cores, {load}, python {sys.version.split()[0]}"


def percentile(values, q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))
