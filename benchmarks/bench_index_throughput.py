"""Indexer throughput with full text first (issue 53): how soon passages are searchable, how fast
they are embedded per embedder backend, and where the time goes.

Two folders, the same run on the same machine:
- generated: --mb megabytes of plain-text notes (default 50: ~1,900 files, ~75,000 passages of
  ~100 words; --mb 2 for a quick run);
- real: Python's own documentation of its standard library rendered as text by pydoc (--real-modules
  modules, one file each), or --real DIR, any folder of documents.

For each folder, `index_folder` into a fresh index with a null embedder (constant vectors: the
text phase, the full-text index and the writes of vectors, without a model) prints the time to
the first searchable passage, to all passages searchable by full text (and the passages/s of
that), the full-text index refreshes within it, and the writing of the vectors. Then each
backend (--backends, default onnx, onnx-int8 and torch) indexes the folder again, or its first files when
the whole would take longer than --budget seconds of embedding: its load, its embedding rate
(passages/s of the embedding phase, and of a raw encode of the same texts) and the time to all
embedded. Last: RATIO default/torch embedding rate, the time a whole folder would take at the
default's rate, and pool recall per backend from lab/results/backend_support (no model runs).

Run: .venv/bin/python benchmarks/bench_index_throughput.py [--mb 50] [--backends onnx,onnx-int8,torch,model2vec]
     [--budget 120] [--real DIR | --real-modules 150] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from bench_support import ROOT, NullEmbedder, machine_line, paragraph

from index_builder.folder import index_folder
from index_builder.store import IndexStore
from index_builder.store_vectors import FTS_REFRESH_ROWS
from models.config import EMBEDDER_BACKENDS, load_settings
from models.embedder_choice import CPU_DEFAULT
from models.onnx_export import onnx_model
from models.registry import embedder_path, load_embedder

PASSAGES_PER_FILE = 40  # ~27 KB text files, as in issue 35's 55 MB folder of 2,000 files
TARGET_TEXT_RATE, TARGET_RATIO, TARGET_50MB_MINUTES = 150, 2.0, 30


def make_folder(folder: Path, megabytes: float, seed: int = 7) -> int:
    """Plain-text notes of PASSAGES_PER_FILE ~100-word paragraphs, up to `megabytes`; returns files."""
    rng, written, files = random.Random(seed), 0, 0
    while written < megabytes * 1_000_000:
        body = "\n\n".join(paragraph(rng, 100) for _ in range(PASSAGES_PER_FILE))
        sub = folder / f"topic{files % 10}"
        sub.mkdir(parents=True, exist_ok=True)
        text = f"Note {files}\n\n{body}\n"
        (sub / f"note{files:04d}.txt").write_text(text, encoding="utf-8")
        written, files = written + len(text.encode()), files + 1
    return files


def python_docs(folder: Path, modules: int) -> int:
    """The standard library's documentation as pydoc renders it in plain text, a file per module."""
    import pkgutil
    import pydoc
    import sys
    import warnings

    names = sorted(m.name for m in pkgutil.iter_modules() if m.name in sys.stdlib_module_names
                   and not m.name.startswith("_") and m.name not in ("antigravity", "this", "idlelib", "turtledemo"))
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for name in names:
        if written >= modules:
            break
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                text = pydoc.render_doc(name, renderer=pydoc.plaintext)
        except Exception:  # a module that does not import here (a missing C library): left out
            continue
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
        written += 1
    return written


class Timeline:
    """When the run reached each point, from its progress reports (seconds since it started)."""

    def __init__(self, store=None):
        self.started = time.perf_counter()
        self.first_text = self.all_text = self.all_embedded = None
        self.last = None
        self.store, self.text_refresh = store, 0.0

    def __call__(self, progress) -> None:
        now = time.perf_counter() - self.started
        self.last = progress
        if self.first_text is None and progress.passages_done:
            self.first_text = now  # its batch is committed: searchable by full text
        if self.all_text is None and progress.phase != "reading":
            self.all_text = now  # the text phase and its full-text refresh are done
            self.text_refresh = getattr(self.store, "full_text_seconds", 0.0)
        if progress.embed_total and progress.passages_embedded >= progress.embed_total:
            self.all_embedded = self.all_embedded or now


def run_index(folder: Path, work: Path, embedder) -> tuple[Timeline, float, IndexStore, int]:
    """index_folder into a fresh index: (timeline, total seconds, store, passages)."""
    index = work / "index"
    shutil.rmtree(index, ignore_errors=True)
    store = IndexStore.open_or_create(index, embedder.model_id, embedder.dim)
    timeline = Timeline(store)
    summary = index_folder(store, embedder, folder, on_progress=timeline)
    total = time.perf_counter() - timeline.started
    if timeline.all_text is None:
        timeline.all_text = total
        timeline.text_refresh = getattr(store, "full_text_seconds", 0.0)
    return timeline, total, store, summary.passages


def text_phase(label: str, folder: Path, work: Path) -> tuple[list[str], int, float]:
    """Lines on the embedder-free part of indexing the whole folder; (lines, passages, text seconds)."""
    timeline, total, store, passages = run_index(folder, work, NullEmbedder())
    progress = timeline.last
    text_s = timeline.all_text
    fts = getattr(store, "full_text_seconds", 0.0)
    rate = passages / text_s
    vectors = progress.seconds_in("embedding")
    lines = [f"{label}, null embedder (what every backend shares):",
             f"  first passage searchable   {timeline.first_text:8.2f} s",
             f"  all {passages} passages searchable by full text {text_s:8.1f} s = {rate:6.0f} passages/s "
             f"(target >= {TARGET_TEXT_RATE}/s: {'met' if rate >= TARGET_TEXT_RATE else 'NOT met'})",
             f"    of which full-text index refreshes {timeline.text_refresh:6.1f} s (every {FTS_REFRESH_ROWS:,} rows written, "
             "and once at the end of the text)",
             f"  writing {passages} vectors (Lance merge, no model) {vectors:6.1f} s, of which full-text index "
             f"refreshes {fts - timeline.text_refresh:5.1f} s (every {FTS_REFRESH_ROWS:,} rows rewritten); finishing (removals, "
             f"indexes, compaction) {progress.seconds_in('finishing'):5.1f} s; whole run {total:6.1f} s"]
    return lines, passages, text_s


def slice_folder(folder: Path, count: int, target: Path) -> Path:
    """The first `count` files in a folder of their own (hard links: the walk does not follow
    symbolic ones)."""
    shutil.rmtree(target, ignore_errors=True)
    for path in sorted(p for p in folder.rglob("*") if p.is_file())[:count]:
        link = target / path.relative_to(folder)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.link(path, link)
    return target


def backend_line(backend: str, embedder, folder: Path, work: Path, passages: int, budget: float) -> tuple[str, float]:
    """One backend's run on the folder (or its first files within the budget); (line, embedding rate)."""
    from index_builder.documents import Document
    from index_builder.extract import extract
    from index_builder.pipeline import embedding_text

    files = sorted(p for p in folder.rglob("*") if p.is_file())
    sample = []
    for path in files[:20]:
        extracted = extract(path, path.read_bytes())
        doc = Document(source="", path=path.name, title=extracted.title, sections=extracted.sections)
        sample.extend(embedding_text(doc, c.text, c.section) for c in doc.passages())
    sample = sample[:128]
    loaded = time.perf_counter()
    if hasattr(embedder, "load"):
        embedder.load()
    load_s = time.perf_counter() - loaded
    embedder.encode(sample[:16])  # warm-up
    started = time.perf_counter()
    embedder.encode(sample)
    raw = len(sample) / (time.perf_counter() - started)
    take = len(files) if passages / raw <= budget else max(1, int(len(files) * raw * budget / passages))
    part = folder if take == len(files) else slice_folder(folder, take, work / "slice")
    timeline, total, store, written = run_index(part, work, embedder)
    rate = written / max(1e-9, timeline.last.seconds_in("embedding"))
    scope = "whole folder" if take == len(files) else f"first {take} files"
    return (f"  {backend:9} load {load_s:5.1f} s | raw encode {raw:7.1f} passages/s | embedding phase {rate:7.1f} "
            f"passages/s | {written} passages all embedded in {timeline.all_embedded or total:6.1f} s ({scope})"), rate


def pool_recall() -> list[str]:
    """All supporting paragraphs in the hybrid top 40, per backend, from lab's recorded read sets."""
    lines = []
    for path in sorted((ROOT / "lab" / "results" / "backend_support").glob("*.json")):
        run = json.loads(path.read_text())
        shares = []
        for name, data in run["sets"].items():
            questions = data["questions"]
            found = sum(set(q["support"]) <= set(q["pool"][:40]) for q in questions)
            shares.append(f"{name} {100 * found / len(questions):.0f}% of {len(questions)}")
        lines.append(f"  {path.stem:14} pool recall (all support in top 40): {', '.join(shares)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the generated folder (default 50)")
    parser.add_argument("--backends", default="onnx,onnx-int8,torch",
                        help=f"any of {', '.join(EMBEDDER_BACKENDS)}; none: the null embedder's part only")
    parser.add_argument("--budget", type=float, default=120.0,
                        help="seconds of embedding a backend gets per folder; a slower one indexes the first files")
    parser.add_argument("--real", type=Path, default=None, help="a folder of real documents (default: Python's docs)")
    parser.add_argument("--real-modules", type=int, default=150, help="standard library modules rendered by pydoc")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where the ONNX export and the model2vec table are cached (default: the data dir)")
    args = parser.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip() and b.strip() != "none"]
    unknown = sorted(set(backends) - set(EMBEDDER_BACKENDS))
    if unknown:
        parser.error(f"unknown backend {', '.join(unknown)} (known: {', '.join(EMBEDDER_BACKENDS)})")
    print(machine_line())
    settings = load_settings(**({"data_dir": args.data_dir} if args.data_dir else {}))
    path, cache = embedder_path(settings), Path(settings.data_dir) / "models"
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        generated = work / "generated"
        count = make_folder(generated, args.mb)
        real = args.real
        if real is None:
            real = work / "python-docs"
            python_docs(real, args.real_modules)
        folders = [(f"generated folder ({args.mb:g} MB, {count} files)", generated),
                   (f"real folder ({real.name}: {sum(1 for p in real.rglob('*') if p.is_file())} files, "
                    f"{sum(p.stat().st_size for p in real.rglob('*') if p.is_file()) / 1e6:.1f} MB)", real)]
        embedders = {}
        for backend in backends:  # what is made once per machine (an ONNX export, the model2vec table), untimed below
            started = time.perf_counter()
            embedders[backend] = load_embedder(path, backend, cache)
            if backend in ("onnx", "onnx-int8"):
                onnx_model(path, cache, int8=backend == "onnx-int8")
            print(f"{backend} prepared in {time.perf_counter() - started:.1f} s "
                  f"(first use on a machine: the export or table made, kept in the cache)")
        rates: dict[str, list[float]] = {b: [] for b in backends}
        projections = []
        for label, folder in folders:
            lines, passages, text_s = text_phase(label, folder, work)
            print("\n".join(lines))
            print("  per backend:")
            for backend, embedder in embedders.items():
                line, rate = backend_line(backend, embedder, folder, work, passages, args.budget)
                rates[backend].append(rate)
                print(line)
            if CPU_DEFAULT in rates:
                whole = text_s + passages / rates[CPU_DEFAULT][-1]
                projections.append((label, passages, whole, text_s))
        if CPU_DEFAULT in rates and "torch" in rates:
            for (label, _), ours, theirs in zip(folders, rates[CPU_DEFAULT], rates["torch"]):
                ratio = ours / theirs
                print(f"RATIO {CPU_DEFAULT} (the CPU default) / torch embedding rate = {ratio:.2f}x on the {label.split(' (')[0]} "
                      f"(target >= {TARGET_RATIO:g}x: {'met' if ratio >= TARGET_RATIO else 'NOT met'})")
        for label, passages, whole, text_s in projections:
            scale = 50 / args.mb if label.startswith("generated") else None
            line = f"{label.split(' (')[0]}: {passages} passages fully indexed with {CPU_DEFAULT} in ~{whole / 60:.1f} min"
            if scale:
                minutes = whole * scale / 60
                line += (f"; 50 MB at these rates ~{minutes:.0f} min (target <= {TARGET_50MB_MINUTES} min: "
                         f"{'met' if minutes <= TARGET_50MB_MINUTES else 'NOT met'}; it needs "
                         f"{passages * scale / (TARGET_50MB_MINUTES * 60 - text_s * scale):.0f} passages/s of embedding)")
            print(line)
        print("pool recall per backend (lab/backend_support.py, EVALUATION.md; recorded, not measured here):")
        print("\n".join(pool_recall()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
