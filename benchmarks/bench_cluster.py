"""Cluster index build: passages/s on a local Ray cluster with 1 and 2 workers against the
single-machine path in the same run, and each worker's peak memory against the dump's length.

1. The shortened enwiki dump (--small: its first 100 pages) is built on one machine
   (`index_wikipedia`) and on a local Ray cluster with 1 and 2 workers (`build_on_cluster`), all
   with the same embedder (the bundled MiniLM, torch; or --embedder null to measure parsing,
   chunking and writing alone). RATIO = cluster passages/s / single-machine passages/s, wall time
   from the call to the last commit (worker start-up and model loading included, Ray start-up
   not). "busy" is passages per second of worker time: a worker's own rate, without start-up.
2. Memory: the same dump repeated 1x and 2x (4x without --small) is built on 2 workers; RATIO
   worker peak RSS 2x/1x (4x/1x) should stay ~1: a worker holds one shard at a time.

Run: .venv/bin/python benchmarks/bench_cluster.py [--small] [--embedder null]   (needs the
cluster extra). On a machine with 2 cores 2 workers cannot beat 1 by much: the driver and the
workers share them.
"""
from __future__ import annotations

import argparse
import bz2
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from bench_support import NullEmbedder, machine_line
from bench_wikipedia import ENWIKI, repeated_dump

from index_builder.cluster.build import build_on_cluster
from index_builder.cluster.ray_runtime import connect
from index_builder.cluster.shards import wikipedia_parts
from index_builder.store import IndexStore
from index_builder.wikipedia import index_wikipedia


def first_pages(source: Path, pages: int, out: Path) -> Path:
    xml = bz2.open(source, "rt", encoding="utf-8").read()
    start, end = xml.index("<page>"), xml.rindex("</mediawiki>")
    chosen = re.findall(r"<page>.*?</page>\s*", xml[start:end], flags=re.S)[:pages]
    out.write_text(xml[:start] + "".join(chosen) + xml[end:], encoding="utf-8")
    return out


def xml_size(dump: Path) -> int:
    opener = bz2.open if dump.suffix == ".bz2" else open
    with opener(dump, "rb") as fh:
        return sum(len(block) for block in iter(lambda: fh.read(1 << 20), b""))


def embedder_maker(kind: str):
    if kind == "null":
        return NullEmbedder
    from index_builder.cluster.commands import embedder_factory
    from models.config import load_settings

    return embedder_factory(load_settings())


def fresh_store(path: Path, embedder) -> IndexStore:
    shutil.rmtree(path, ignore_errors=True)
    return IndexStore.open_or_create(path, embedder.model_id, embedder.dim)


def single(dump: Path, make, work: Path) -> dict:
    embedder = make()
    embedder.encode(["warm up"])
    with fresh_store(work / "single", embedder) as store:
        start = time.perf_counter()
        summary = index_wikipedia(store, embedder, dump)
        seconds = time.perf_counter() - start
        disk = store.status().disk_bytes
    return {"passages": summary.passages, "seconds": seconds, "disk": disk}


def cluster(dump: Path, make, work: Path, workers: int, piece: int, model) -> dict:
    with fresh_store(work / f"cluster-{workers}", model) as store:
        start = time.perf_counter()
        summary = build_on_cluster(store, wikipedia_parts(dump, xml_bytes=piece), make, "local", workers=workers)
        seconds = time.perf_counter() - start
        disk = store.status().disk_bytes
    return {"passages": summary.passages, "seconds": seconds, "shards": summary.shards, "disk": disk,
            "busy": summary.passages / max(summary.worker_seconds, 1e-9),
            "peak": max(summary.peak_rss_mb.values(), default=0.0), "peaks": summary.peak_rss_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--embedder", choices=("minilm", "null"), default="minilm")
    args = parser.parse_args()
    print(machine_line())
    work = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        dump = first_pages(ENWIKI, 100, work / "enwiki-100.xml") if args.small else ENWIKI
        piece = max(64 << 10, xml_size(dump) // 12)  # ~12 shards: enough to keep 2 workers busy
        make = embedder_maker(args.embedder)
        model = make()
        started = time.perf_counter()
        ray = connect("local", cpus=max(2, os.cpu_count() or 1))
        print(f"local Ray cluster started in {time.perf_counter() - started:.1f}s "
              f"({int(ray.cluster_resources().get('CPU', 0))} CPUs); embedder: {args.embedder}; "
              f"dump: {dump.name} ({xml_size(dump) / 1e6:.1f} MB XML, shards of ~{piece / 1e6:.2f} MB)")
        print("1. passages/s, single machine against the cluster:")
        base = single(dump, make, work)
        base_rate = base["passages"] / base["seconds"]
        print(f"  single machine: {base['passages']} passages in {base['seconds']:.1f}s = {base_rate:.1f} passages/s; "
              f"index {base['disk'] / 1e6:.1f} MB on disk = {base['disk'] / base['passages'] / 1024:.2f} KB/passage")
        rates = {}
        for workers in (1, 2):
            r = cluster(dump, make, work, workers, piece, model)
            rates[workers] = r["passages"] / r["seconds"]
            print(f"  Ray, {workers} worker{'s' if workers > 1 else ' '}: {r['passages']} passages, {r['shards']} shards "
                  f"in {r['seconds']:.1f}s = {rates[workers]:.1f} passages/s (busy {r['busy']:.1f}/s per worker); "
                  f"peak RSS per worker {r['peak']:.0f} MB; index {r['disk'] / r['passages'] / 1024:.2f} KB/passage")
            print(f"RATIO Ray {workers} worker{'s' if workers > 1 else ''} / single machine = "
                  f"{rates[workers] / base_rate:.2f}")
        print(f"RATIO Ray 2 workers / 1 worker = {rates[2] / rates[1]:.2f}")

        print("2. worker memory against dump length (2 workers):")
        sizes = [1, 2] if args.small else [1, 2, 4]
        peaks = {}
        for times in sizes:
            repeated = work / f"x{times}.xml"
            repeated_dump(dump, times, repeated)
            r = cluster(repeated, make, work, 2, piece, model)
            peaks[times] = r["peak"]
            print(f"  x{times}: {repeated.stat().st_size / 1e6:5.1f} MB XML, {r['passages']} passages, "
                  f"{r['shards']} shards, {r['seconds']:.1f}s, peak RSS per worker "
                  + ", ".join(f"{mb:.0f} MB" for mb in r["peaks"].values()))
            repeated.unlink()
        last = sizes[-1]
        print(f"RATIO worker peak RSS x{last}/x1 = {peaks[last] / peaks[1]:.3f} "
              f"(dump {last}x longer; ~1.0 means a worker's memory does not grow with the dump)")
        ray.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
