"""The driver of a cluster build: plan shards, hand them to Ray workers, commit what they wrote,
and resume after a crash.

Commit protocol (the driver alone commits, holding the index's one-writer lock): a finished
shard's passage fragments are appended, then its document fragments, then the shard is recorded
done in the index metadata. A crash between the two appends leaves orphan passages, removed when
the next run starts (as on one machine); a crash after them, before the record, leaves the shard
listed as "committing": the next run builds it again and deletes its documents before committing
them anew. So a re-run skips done shards and never duplicates or loses a passage.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from models.errors import AssistantError

from ..progress import Progress, ProgressCallback, StopCheck
from ..store import IndexStore
from .ray_runtime import cluster_shape, connect
from .shards import Part, Shard
from .worker import ShardResult, build_shard, shard_documents

IN_FLIGHT_PER_WORKER = 2  # one working, one waiting: a worker never idles while the driver commits
WORKER_RESTARTS = 3  # a lost worker is restarted and its shard retried this many times


@dataclass
class ClusterSummary:
    workers: int = 0
    gpus: int = 0
    shards: int = 0  # built now
    already: int = 0  # committed by an earlier run, skipped
    documents: int = 0
    passages: int = 0
    seconds: float = 0.0
    worker_seconds: float = 0.0  # summed over shards: what the workers spent building them
    skipped: dict[str, int] = field(default_factory=dict)
    ended_early: str = ""
    notes: list[str] = field(default_factory=list)
    peak_rss_mb: dict[int, float] = field(default_factory=dict)  # worker pid -> its peak RSS

    def line(self) -> str:
        rate = self.passages / self.seconds if self.seconds else 0.0
        kind = f"{self.workers} worker{'s' if self.workers != 1 else ''}" + (" on GPUs" if self.gpus else "")
        skipped = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items())) or "none"
        text = (f"{self.shards} shards built on {kind}, {self.already} already committed; {self.documents} "
                f"documents, {self.passages} passages written ({rate:.0f} passages/s); skipped: {skipped}")
        for note in self.notes:
            text += f"\n{note}"
        if self.ended_early:
            text += (f"\nwarning: the dump is cut or damaged ({self.ended_early}); "
                     "the articles before that point are indexed")
        return text


class _ShardWorker:
    """One Ray actor: loads the embedder once (on its GPU when it has one), then builds shards."""

    def __init__(self, make_embedder: Callable, tables: dict):
        self.embedder = make_embedder()
        self.tables = tables
        model = getattr(self.embedder, "model", None)
        torch_model = getattr(self.embedder, "backend", "torch") == "torch"  # ONNX runs where it was made
        if model is not None and hasattr(model, "to") and torch_model and _gpu_ids() and _cuda():
            model.to("cuda")

    def build(self, shard: Shard, parsed: ShardResult | None = None) -> ShardResult:
        return build_shard(shard, self.embedder, self.tables, parsed)

    def pid(self) -> int:
        return os.getpid()


def _gpu_ids() -> list:
    import ray

    return ray.get_gpu_ids()


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def parse_shard(shard: Shard) -> tuple[Shard, ShardResult]:
    """CPU stage of a GPU cluster: the shard's documents, cleaned and split into sections."""
    result = ShardResult(shard.source, shard.number)
    docs = list(shard_documents(shard, result))
    return Shard(shard.source, shard.number, "documents", documents=docs), result


def _table_info(store: IndexStore) -> dict:
    import lance

    info = {}
    for name, table in (("passages", store.passages), ("documents", store.documents)):
        dataset = lance.dataset(table.uri)
        info[name] = {"uri": table.uri, "schema": dataset.schema, "version": dataset.data_storage_version}
    return info


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _start_records(store: IndexStore, parts: list[Part]) -> tuple[list[Part], dict]:
    """Each part's resume record {plan, done, committing}; parts already complete are left out."""
    sources, todo, records = store.meta.get("sources", {}), [], {}
    for part in parts:
        info = sources.get(part.source) if isinstance(sources.get(part.source), dict) else {}
        record = info.get("cluster") if isinstance(info.get("cluster"), dict) else None
        if record and record.get("plan") == part.plan:
            if not info.get("incomplete"):
                part.total = part.total or record.get("shards")
                continue  # built completely by an earlier cluster run
        elif record:
            raise AssistantError(f"{part.source} is already in the index from a cluster build of another version "
                                 "of the file, or of the folder it lies in; run that command again, or remove it "
                                 f"first with `assistant index remove {part.source}`")
        elif store.documents.count_rows(f"source = {_quote(part.source)}"):
            raise AssistantError(f"{part.source} is already in the index (built without --cluster); remove it first "
                                 f"with `assistant index remove {part.source}`, or update it without --cluster")
        else:
            record = {"plan": part.plan}
        record.setdefault("done", [])
        record.setdefault("committing", [])
        todo.append(part)
        records[part.source] = record
    return todo, records


def build_on_cluster(store: IndexStore, parts: list[Part], make_embedder: Callable, address: str,
                     workers: int | None = None, on_progress: ProgressCallback | None = None,
                     should_stop: StopCheck | None = None, cpus: int | None = None,
                     use_gpus: bool = True) -> ClusterSummary:
    """Build `parts` into `store` on the Ray cluster at `address` ("local" starts one with `cpus`
    cores). `make_embedder` is called once in each worker. Where the cluster has GPUs (and
    `use_gpus`), CPU tasks parse and one worker per GPU embeds; else `workers` (default: the
    cluster's CPUs) do both."""
    ray = connect(address, cpus)
    summary = ClusterSummary()
    store.hold_write_lock(reload_meta=True)
    todo, records = _start_records(store, parts)
    summary.already = sum(p.total or 0 for p in parts if p not in todo)
    if not todo:
        summary.notes.append("nothing to do: every shard is committed already")
        return summary
    for part in todo:
        store.begin_source(part.source, part.kind, cluster=records[part.source])
    store.remove_orphan_passages()
    uncertain = {(s, n) for s, r in records.items() for n in r["committing"]}
    cpu_count, gpu_count = cluster_shape(ray)
    gpu_count = gpu_count if use_gpus else 0
    summary.gpus = gpu_count
    # One embedding worker per GPU (a worker asking for a GPU that is not there would wait forever).
    summary.workers = min(workers or gpu_count, gpu_count) if gpu_count else workers or max(1, cpu_count)
    # A GPU worker embeds faster than one core parses: keep enough shards in flight that every
    # CPU has one to parse.
    in_flight = max(IN_FLIGHT_PER_WORKER, cpu_count // summary.workers + 1) if gpu_count else IN_FLIGHT_PER_WORKER
    tables = _table_info(store)
    actor = ray.remote(_ShardWorker).options(
        num_cpus=1, num_gpus=1 if gpu_count else 0, max_restarts=WORKER_RESTARTS,
        max_task_retries=WORKER_RESTARTS)
    pool = [actor.remote(make_embedder, tables) for _ in range(summary.workers)]
    parse = (ray.remote(parse_shard).options(num_cpus=1, num_returns=2, max_retries=WORKER_RESTARTS)
             if gpu_count else None)
    progress = Progress(total_files=None)
    try:
        _run(ray, store, todo, records, pool, parse, uncertain, summary, progress, on_progress, should_stop,
             in_flight)
    finally:
        for handle in pool:
            ray.kill(handle)
    for part in todo:  # complete: the resume record shrinks to what a later run compares
        store.meta["sources"][part.source] = {"kind": part.kind,
                                              "cluster": {"plan": part.plan, "shards": part.total}}
        if part.summary is not None:
            for name in ("bad_lines", "duplicate_ids"):
                count = getattr(part.summary, name)
                if count:
                    summary.notes.append(f"{part.source}: {count} {name.replace('_', ' ')} skipped")
        if part.ended_early:
            summary.ended_early = part.ended_early
    store.finish()
    summary.seconds = progress.elapsed
    return summary


def _shards(todo: list[Part], records: dict, summary: ClusterSummary) -> Iterator[Shard]:
    for part in todo:
        done = set(records[part.source]["done"])
        for shard in part.shards():
            if shard.number in done:
                summary.already += 1
                continue
            yield shard


def _run(ray, store, todo, records, pool, parse, uncertain, summary, progress, on_progress, should_stop,
             in_flight):
    from .commit import commit_results, shard_result

    shards = _shards(todo, records, summary)
    load = {i: 0 for i in range(len(pool))}
    pending: dict = {}  # ref -> worker index
    exhausted = False
    while True:
        stopping = bool(should_stop and should_stop())
        while not exhausted and not stopping and min(load.values()) < in_flight:
            shard = next(shards, None)
            if shard is None:
                exhausted = True
                break
            index = min(load, key=load.get)
            if parse is not None:  # parse on any CPU, embed on the GPU worker
                documents, parsed = parse.remote(shard)
                ref = pool[index].build.remote(documents, parsed)
            else:
                ref = pool[index].build.remote(shard)
            pending[ref] = index
            load[index] += 1
        if not pending:
            if stopping:
                raise Cancelled()
            break
        ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0.5)
        results = []
        for ref in ready:
            load[pending.pop(ref)] -= 1
            results.append(shard_result(ray, ref))
        if results:
            commit_results(store, records, results, uncertain)
            for result in results:
                summary.shards += 1
                summary.documents += result.documents
                summary.passages += result.passages
                summary.worker_seconds += result.seconds
                summary.peak_rss_mb[result.worker_pid] = max(result.peak_rss_mb,
                                                             summary.peak_rss_mb.get(result.worker_pid, 0.0))
                for why, n in result.skipped.items():
                    summary.skipped[why] = summary.skipped.get(why, 0) + n
                summary.ended_early = summary.ended_early or result.ended_early
            progress.passages_done = summary.passages
        progress.files_done = summary.shards + summary.already
        known = [p.total for p in todo]
        progress.total_files = sum(known) if all(t is not None for t in known) else None
        progress.current = todo[-1].source
        if on_progress:
            on_progress(progress)
