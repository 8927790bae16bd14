"""Wikipedia dump indexing: pages/s, passages/s and peak memory, and whether memory grows with
the dump's length.

1. Every dump in /work/shared/data/mediawiki_xml goes through the real streaming path
   (`index_wikipedia`: decompress, mwxml, filters, wikitext cleaning, chunking, LanceDB writes)
   with a null embedder, so that parsing+chunking+writing is measured apart from embedding.
2. The bundled MiniLM embeds a sample of those passages: its passages/s, and the end-to-end
   rate both stages give together (embedding dominates).
3. Memory: the enwiki shortened dump repeated 1x, 2x and 4x (titles made unique, one valid XML
   document each) is indexed in a fresh subprocess each; RATIO peak RSS 4x/1x should stay ~1.

Run: .venv/bin/python benchmarks/bench_wikipedia.py [--small]
(default: a few minutes on 2 cores; --small: repeats 1x and 2x only, smaller embedding sample)
"""
from __future__ import annotations

import argparse
import bz2
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_support import NullEmbedder, machine_line, peak_rss_mb

from index_builder.store import IndexStore
from index_builder.wikipedia import index_wikipedia

DUMPS = Path("/work/shared/data/mediawiki_xml")
ENWIKI = DUMPS / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


def index_with_null_embedder(dump: Path, work: Path) -> dict:
    embedder = NullEmbedder()
    shutil.rmtree(work, ignore_errors=True)
    store = IndexStore.open_or_create(work, embedder.model_id, embedder.dim)
    start = time.perf_counter()
    summary = index_wikipedia(store, embedder, dump)
    seconds = time.perf_counter() - start
    pages = summary.articles + summary.unchanged + sum(summary.skipped.values())
    return {"pages": pages, "articles": summary.articles, "passages": summary.passages,
            "seconds": seconds, "skipped": summary.skipped, "peak_rss_mb": peak_rss_mb(),
            "ended_early": summary.ended_early}


def repeated_dump(source: Path, times: int, out: Path) -> None:
    """One valid dump holding the pages of `source` `times` times, with unique titles."""
    with bz2.open(source, "rt", encoding="utf-8") if source.suffix == ".bz2" else source.open() as fh:
        xml = fh.read()
    start, end = xml.index("<page>"), xml.rindex("</mediawiki>")
    head, pages = xml[:start], xml[start:end]
    with out.open("w", encoding="utf-8") as fh:
        fh.write(head)
        for copy in range(times):
            fh.write(pages if copy == 0 else
                     re.sub(r"<title>(.*?)</title>", rf"<title>\1 (copy {copy})</title>", pages))
        fh.write("</mediawiki>\n")


def sample_texts(index: Path, n: int) -> list[str]:
    table = IndexStore.open(index).passages
    rows = table.search().select(["title", "section", "text"]).limit(n).to_list()
    return [f"{r['title']} - {r['section']}: {r['text']}" for r in rows]


def child(dump: str, work: str) -> None:
    print(json.dumps(index_with_null_embedder(Path(dump), Path(work))))


def run_child(dump: Path, work: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(dump), str(work)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--embed-sample", type=int, default=300, help="passages embedded for the embed rate")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    print(machine_line())
    work = Path(tempfile.mkdtemp(prefix="bench-wiki-"))
    try:
        print("1. streaming path with a null embedder (parse + clean + chunk + write):")
        enwiki_index = None
        for dump in sorted(DUMPS.iterdir()):
            r = run_child(dump, work / f"index-{dump.name}")
            if dump == ENWIKI:
                enwiki_index = work / f"index-{dump.name}"
            skipped = ", ".join(f"{n} {why}" for why, n in sorted(r["skipped"].items())) or "none"
            print(f"  {dump.name[:48]:48} {r['pages']:5} pages {r['passages']:6} passages "
                  f"{r['pages'] / r['seconds']:7.1f} pages/s {r['passages'] / r['seconds']:8.1f} passages/s "
                  f"peak RSS {r['peak_rss_mb']:.0f} MB; skipped: {skipped}"
                  + (f"; dump cut: {r['ended_early'][:40]}" if r["ended_early"] else ""))
            if dump == ENWIKI:
                parse_rate = r["passages"] / r["seconds"]

        print("2. embedding (bundled MiniLM, torch) of a sample of the enwiki passages:")
        from models.registry import get_embedder
        from models.config import load_settings

        embedder = get_embedder(load_settings())
        texts = sample_texts(enwiki_index, 100 if args.small else args.embed_sample)
        embedder.encode(texts[:32])
        start = time.perf_counter()
        embedder.encode(texts)
        embed_rate = len(texts) / (time.perf_counter() - start)
        both = 1 / (1 / parse_rate + 1 / embed_rate)
        print(f"  embed {embed_rate:.1f} passages/s; parse+write {parse_rate:.1f} passages/s; "
              f"end-to-end estimate {both:.1f} passages/s (RATIO embed time share = {both / embed_rate:.2f})")

        print("3. memory against dump length (enwiki shortened, repeated; fresh process each):")
        sizes = [1, 2] if args.small else [1, 2, 4]
        peaks = {}
        for times in sizes:
            dump = work / f"enwiki-x{times}.xml"
            repeated_dump(ENWIKI, times, dump)
            r = run_child(dump, work / f"index-x{times}")
            peaks[times] = r["peak_rss_mb"]
            print(f"  x{times}: {dump.stat().st_size / 1e6:6.1f} MB XML, {r['articles']} articles, "
                  f"{r['passages']} passages, {r['seconds']:.1f}s, peak RSS {r['peak_rss_mb']:.0f} MB")
            dump.unlink()
        last = sizes[-1]
        print(f"RATIO peak RSS x{last}/x1 = {peaks[last] / peaks[1]:.3f} "
              f"(dump {last}x longer; ~1.0 means memory does not grow with the dump)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
