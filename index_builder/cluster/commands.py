"""What `assistant index wikipedia|passages --cluster ADDRESS` calls: check the request before
any model loads (Ray installed, a sane address, a readable dump), then build."""
from __future__ import annotations

import functools
from pathlib import Path

from models.errors import AssistantError

from ..progress import ProgressCallback, StopCheck
from ..store import IndexStore
from .build import ClusterSummary, build_on_cluster
from .ray_runtime import require_ray
from .shards import Part, passage_parts, wikipedia_parts


def plan(kind: str, path: Path, address: str, limit: int | None = None) -> list[Part]:
    """The parts (sources) and shards to build; every bad input is one line."""
    require_ray()
    if not address.strip():
        raise AssistantError("--cluster needs an address: local, auto, HOST:6379 or ray://HOST:10001")
    if limit is not None:
        raise AssistantError("--limit works on one machine only; leave it out with --cluster")
    return wikipedia_parts(path) if kind == "wikipedia" else passage_parts(path)


def embedder_factory(settings):
    """What each worker calls to load the configured embedder (a picklable partial)."""
    from models.embedder_choice import resolve_backend
    from models.registry import embedder_path, load_embedder

    return functools.partial(load_embedder, embedder_path(settings), resolve_backend(settings),
                             Path(settings.data_dir) / "models", settings.embedder_device)


def build(store: IndexStore, settings, parts: list[Part], address: str,
          on_progress: ProgressCallback | None = None, should_stop: StopCheck | None = None) -> ClusterSummary:
    return build_on_cluster(store, parts, embedder_factory(settings), address,
                            on_progress=on_progress, should_stop=should_stop)
