"""Indexer throughput: passages/s through the real folder pipeline vs a raw encode.

What it measures, for the torch backend and for the int8 ONNX backend of the bundled MiniLM:
- raw: `embedder.encode(texts)` of exactly the passages the indexer will embed (one call);
- pipeline: `index_folder` over a folder of Markdown files into a fresh index: walk, read,
  hash, extract, chunk, embed, write to LanceDB, full-text index and compaction;
- RATIO pipeline/raw (target >= 0.9: the indexer adds little on top of embedding);
- absolute passages/s of each backend (target for ONNX: >= 200/s on 2 cores), the ONNX/torch
  speed-up and how close the int8 vectors are to the torch ones (mean cosine).
Each figure is the best of --repeats runs, raw and pipeline alternating, on the same machine.

Run: .venv/bin/python benchmarks/bench_index_throughput.py [--small] [--passages N] [--backend onnx]
(default 600 passages, a few minutes on 2 cores; --small: 150 passages)
"""
from __future__ import annotations

import argparse
import random
import shutil
import tempfile
from pathlib import Path

import numpy as np
from bench_support import NullEmbedder, best_of, machine_line, paragraph

from index_builder.documents import Document
from index_builder.extract import extract
from index_builder.folder import index_folder
from index_builder.pipeline import embedding_text
from index_builder.store import IndexStore
from models.config import load_settings
from models.embedder import Embedder
from models.registry import embedder_path

PASSAGES_PER_FILE = 5


def make_folder(folder: Path, passages: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for i in range((passages + PASSAGES_PER_FILE - 1) // PASSAGES_PER_FILE):
        body = "\n\n".join(paragraph(rng, 100) for _ in range(PASSAGES_PER_FILE))
        sub = folder / f"topic{i % 10}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{i:04d}.md").write_text(f"# Note {i}\n\n## Part {i % 3}\n\n{body}\n", encoding="utf-8")


def passage_texts(folder: Path) -> list[str]:
    """The exact strings the indexer embeds, made by the same extractor and chunker."""
    texts = []
    for path in sorted(folder.rglob("*.md")):
        extracted = extract(path, path.read_bytes())
        doc = Document(source="", path=path.name, title=extracted.title, sections=extracted.sections)
        texts.extend(embedding_text(doc, c.text, c.section) for c in doc.passages())
    return texts


def measure(embedder, folder: Path, texts: list[str], work: Path, repeats: int) -> dict:
    embedder.encode(texts[:64])  # warm-up: first calls allocate and pick kernels

    def pipeline():
        index = work / "index"
        shutil.rmtree(index, ignore_errors=True)
        store = IndexStore.open_or_create(index, embedder.model_id, embedder.dim)
        summary = index_folder(store, embedder, folder)
        assert summary.passages == len(texts), (summary.passages, len(texts))

    raw_times, pipe_times = [], []
    for _ in range(repeats):  # alternating, so that a burst of outside load hits both
        raw_times.append(best_of(1, lambda: embedder.encode(texts)))
        pipe_times.append(best_of(1, pipeline))
    raw, pipe = min(raw_times), min(pipe_times)
    return {"raw_per_s": len(texts) / raw, "pipeline_per_s": len(texts) / pipe, "ratio": raw / pipe,
            "raw_seconds": raw}


def pipeline_without_embedding(folder: Path, work: Path) -> float:
    """Seconds of everything but embedding: what the indexer itself adds."""
    index = work / "null-index"
    shutil.rmtree(index, ignore_errors=True)
    embedder = NullEmbedder()
    return best_of(1, lambda: index_folder(IndexStore.open_or_create(index, embedder.model_id, embedder.dim),
                                           embedder, folder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="150 passages (a quick check)")
    parser.add_argument("--passages", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--backend", choices=["torch", "onnx", "both"], default="both")
    args = parser.parse_args()
    passages = 150 if args.small else args.passages
    print(machine_line())
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        folder = work / "docs"
        make_folder(folder, passages)
        texts = passage_texts(folder)
        print(f"corpus: {len(texts)} passages of ~100 words in {len(list(folder.rglob('*.md')))} Markdown files")
        path = embedder_path(load_settings())
        backends = ["torch", "onnx"] if args.backend == "both" else [args.backend]
        results, vectors = {}, {}
        for backend in backends:
            embedder = Embedder(path, backend=backend)  # onnx: exported once into the data dir
            results[backend] = measure(embedder, folder, texts, work, args.repeats)
            vectors[backend] = embedder.encode(texts[:200])
            r = results[backend]
            r["overhead_share"] = pipeline_without_embedding(folder, work) / r["raw_seconds"]
            print(f"{backend:5}: raw encode {r['raw_per_s']:7.1f} passages/s | pipeline {r['pipeline_per_s']:7.1f} "
                  f"passages/s | RATIO pipeline/raw = {r['ratio']:.3f} (target >= 0.9: "
                  f"{'met' if r['ratio'] >= 0.9 else 'NOT met'}); the pipeline without embedding takes "
                  f"{r['overhead_share']:.1%} of the raw encode time")
        if len(results) == 2:
            speedup = results["onnx"]["pipeline_per_s"] / results["torch"]["pipeline_per_s"]
            cosine = float(np.mean(np.sum(vectors["onnx"] * vectors["torch"], axis=1)))
            print(f"RATIO onnx/torch pipeline speed = {speedup:.2f}x; mean cosine int8 vs torch vectors = {cosine:.4f}")
        if "onnx" in results:
            onnx_rate = results["onnx"]["pipeline_per_s"]
            print(f"onnx pipeline {onnx_rate:.0f} passages/s: target >= 200/s "
                  f"{'met' if onnx_rate >= 200 else 'NOT met'} on this machine")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
