"""Connecting to Ray: an optional extra, so its absence is one line saying what to install."""
from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from models.errors import AssistantError

INSTALL_HINT = 'pip install -e ".[cluster]"'


def require_ray():
    """The ray module, or one line saying how to get it."""
    try:
        import ray
    except ImportError:
        raise AssistantError(f"--cluster needs Ray, which is not installed: run `{INSTALL_HINT}` "
                             "(or `bash scripts/install.sh --with cluster`)") from None
    return ray


def connect(address: str, cpus: int | None = None, gpus: int | None = None):
    """Join the cluster at `address` ("auto", "HOST:6379", "ray://HOST:10001"), or start a local
    one with this machine's cores ("local"; `cpus` and `gpus` override what Ray detects). Returns
    the ray module; idempotent in one process."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    if not address or not address.strip():
        raise AssistantError("--cluster needs an address: local, auto, HOST:6379 or ray://HOST:10001")
    # Ray starts its processes by fork+exec after lancedb is loaded; lancedb warns about forks,
    # which do not apply to an exec'd process.
    warnings.filterwarnings("ignore", message="lancedb fork support")
    kwargs = dict(include_dashboard=False, log_to_driver=False, configure_logging=False,
                  ignore_reinit_error=True)
    try:
        if address == "local":
            # Workers of a local cluster import this process's code (a checkout, or a test's
            # helpers), not whatever an installed copy holds.
            paths = [p for p in sys.path if p and Path(p).is_dir()]
            os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
            ray.init(num_cpus=cpus or os.cpu_count() or 1, num_gpus=gpus, **kwargs)
        else:
            ray.init(address=address, **kwargs)
    except AssistantError:
        raise
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise AssistantError(f"cannot reach the Ray cluster at {address}: {first}") from None
    return ray


def cluster_shape(ray) -> tuple[int, int]:
    """(CPUs, GPUs) the cluster has in all."""
    resources = ray.cluster_resources()
    return int(resources.get("CPU", 0)), int(resources.get("GPU", 0))
