"""Indexer throughput: passages/s of `index add` on a generated folder, per embedder backend,
against a raw encode of the same texts, and where the time goes.

The folder is --mb megabytes of plain-text notes (default 50: ~2,000 files, ~80,000 passages of
~100 words, the size of issue 35's measurement). Printed, all in one run on the same machine:
- stages on the whole folder: read + extract + chunk (the exact strings the indexer embeds),
  the tokeniser alone, and the pipeline with a null embedder (walk, read, hash, extract, chunk,
  write to LanceDB, full-text index, compaction): what the indexer costs besides encoding;
- per backend: raw `embedder.encode(texts)` and the real pipeline (`index_folder` into a fresh
  index), RATIO pipeline/raw (1.0: the indexer adds nothing to encoding; above 1 is possible
  because the pipeline overlaps reading with encoding). A backend slower than --budget seconds
  for the whole folder is measured on its first files only (said in the line): torch and
  onnx embed tens of passages a second on 2 cores, hours for 50 MB;
- the speed of each backend against torch's, and how close its vectors are to torch's (mean
  cosine; model2vec vectors are another kind and are not compared).

Run: .venv/bin/python benchmarks/bench_index_throughput.py [--mb 50] [--backends onnx,torch,model2vec]
     [--budget 120] [--data-dir DIR]   (a few minutes each backend, niced; --mb 1 for a quick check)
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_support import NullEmbedder, best_of, machine_line, paragraph

from index_builder.documents import Document
from index_builder.extract import extract
from index_builder.folder import index_folder
from index_builder.pipeline import embedding_text
from index_builder.store import IndexStore
from models.config import EMBEDDER_BACKENDS, load_settings
from models.registry import embedder_path, load_embedder

PASSAGES_PER_FILE = 40  # ~27 KB text files, as in issue 35's 55 MB folder of 2,000 files


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


def passage_texts(files: list[Path]) -> list[str]:
    """The exact strings the indexer embeds, made by the same extractor and chunker."""
    texts = []
    for path in files:
        extracted = extract(path, path.read_bytes())
        doc = Document(source="", path=path.name, title=extracted.title, sections=extracted.sections)
        texts.extend(embedding_text(doc, c.text, c.section) for c in doc.passages())
    return texts


def pipeline_seconds(embedder, folder: Path, work: Path) -> tuple[float, int]:
    index = work / "index"
    shutil.rmtree(index, ignore_errors=True)
    store = IndexStore.open_or_create(index, embedder.model_id, embedder.dim)
    started = time.perf_counter()
    summary = index_folder(store, embedder, folder)
    return time.perf_counter() - started, summary.passages


def slice_folder(files: list[Path], root: Path, count: int, target: Path) -> Path:
    """The first `count` files in a folder of their own (hard links: the walk does not follow
    symbolic ones)."""
    shutil.rmtree(target, ignore_errors=True)
    for path in files[:count]:
        link = target / path.relative_to(root)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.link(path, link)
    return target


def stages(folder: Path, files: list[Path], work: Path, tokenizer) -> tuple[list[str], list[str]]:
    """(lines saying each stage's time on the whole folder, the passages' texts)."""
    started = time.perf_counter()
    texts = passage_texts(files)
    extract_s = time.perf_counter() - started
    tokenise_s = best_of(1, lambda: tokenizer(texts, padding=True, truncation=True, max_length=256))
    null_s, _ = pipeline_seconds(NullEmbedder(), folder, work)
    n = len(texts)
    lines = [f"  read + extract + chunk  {extract_s:7.1f}s  {n / extract_s:8.0f} passages/s",
             f"  pipeline, null embedder {null_s:7.1f}s  {n / null_s:8.0f} passages/s  (walk, read, extract, "
             f"chunk, write, full-text index; writing ~{max(0.0, null_s - extract_s):.1f}s)",
             f"  tokenise (MiniLM)       {tokenise_s:7.1f}s  {n / tokenise_s:8.0f} passages/s  (inside encode below)"]
    return lines, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the generated folder (default 50)")
    parser.add_argument("--backends", default=",".join(EMBEDDER_BACKENDS))
    parser.add_argument("--budget", type=float, default=120.0,
                        help="seconds of raw encoding a backend gets; a slower one is measured on a slice")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where the ONNX export and the model2vec table are cached (default: the data dir)")
    args = parser.parse_args()
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = sorted(set(backends) - set(EMBEDDER_BACKENDS))
    if unknown:
        parser.error(f"unknown backend {', '.join(unknown)} (known: {', '.join(EMBEDDER_BACKENDS)})")
    print(machine_line())
    settings = load_settings(**({"data_dir": args.data_dir} if args.data_dir else {}))
    path, cache = embedder_path(settings), Path(settings.data_dir) / "models"
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        folder = work / "docs"
        count = make_folder(folder, args.mb)
        files = sorted(folder.rglob("*.txt"))
        size = sum(p.stat().st_size for p in files) / 1e6
        embedders = {b: load_embedder(path, b, cache) for b in backends}  # ONNX export / distillation once
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)  # what torch and onnx run
        lines, texts = stages(folder, files, work, tokenizer)
        print(f"folder: {size:.1f} MB, {count} text files, {len(texts)} passages of ~100 words\n"
              "where the time goes, whole folder:")
        print("\n".join(lines))
        per_file = len(texts) / count
        rates, probes = {}, texts[:200]
        for backend, embedder in embedders.items():
            embedder.encode(texts[:64])  # warm-up: first calls allocate and pick kernels
            sample = texts[:256]
            rate = len(sample) / best_of(1, lambda: embedder.encode(sample))
            take = count if len(texts) / rate <= args.budget else max(1, int(rate * args.budget / per_file))
            part = folder if take == count else slice_folder(files, folder, take, work / "slice")
            part_texts = texts if take == count else passage_texts(files[:take])
            raw = best_of(1, lambda: embedder.encode(part_texts))
            pipe, written = pipeline_seconds(embedder, part, work)
            assert written == len(part_texts), (written, len(part_texts))
            rates[backend] = len(part_texts) / pipe
            scope = "whole folder" if take == count else f"first {take} files, {len(part_texts)} passages"
            print(f"{backend:9}: raw encode {len(part_texts) / raw:8.1f} passages/s | index add {rates[backend]:8.1f} "
                  f"passages/s | RATIO index add/raw = {raw / pipe:.3f} ({scope}; index add {pipe:.0f}s)")
        if "torch" in rates:
            reference = embedders["torch"].encode(probes)
            for backend in rates:
                if backend == "torch":
                    continue
                line = f"RATIO {backend}/torch index add speed = {rates[backend] / rates['torch']:.2f}x"
                if embedders[backend].dim == embedders["torch"].dim and backend != "model2vec":
                    cosine = float(np.mean(np.sum(embedders[backend].encode(probes) * reference, axis=1)))
                    line += f"; mean cosine to torch's vectors = {cosine:.4f}"
                print(line)
        for backend, rate in rates.items():
            print(f"{backend}: {rate:.0f} passages/s, target >= 200/s on 2 cores {'met' if rate >= 200 else 'NOT met'}; "
                  f"the {size:.0f} MB folder in ~{len(texts) / rate / 60:.0f} min")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
