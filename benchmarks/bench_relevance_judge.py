"""Relevance-judge throughput next to the embedder's, in the same run: what ranking a wide pool costs.

For each question the judge scores a pool of 30 and of 50 passages (the question's own HotpotQA
paragraphs, then other questions' paragraphs: ~100-word Wikipedia passages, as at run time),
and the embedder (bundled MiniLM bi-encoder, torch as configured by default) encodes the same
passages, which is what indexing them costs. When the judge folder carries a passage selector,
its cost is timed in the same loop: the features and trees over the pool, and the embedding of
its expansion queries (question + a top passage; the index lookups that follow are not timed
here: lab/judge_support.py times whole expansion searches on the real index). They take
turns question by question, so a noisy machine slows them alike. Prints pairs/s, ms per
question at 30 and 50, and the ratios.

Run: .venv/bin/python benchmarks/bench_relevance_judge.py [--small] [--questions N] [--threads N]
     [--judge FOLDER]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data" / "hotpotqa" / "hotpotqa_dev_distractor_500.ircot_format.jsonl"
POOLS = (30, 50)


def load_pools(path: Path, n: int) -> list[tuple[str, list[str]]]:
    """n questions, each with a pool of max(POOLS) passages: its own paragraphs first."""
    from index_builder.datasets import load_dataset
    from models.judges.relevance import passage_text

    examples = load_dataset(path, n + 10)
    everything = [passage_text(p.title, p.text) for e in examples for p in e.paragraphs]
    pools = []
    for i, example in enumerate(examples[:n]):
        own = [passage_text(p.title, p.text) for p in example.paragraphs]
        others = [p for p in everything[10 * (i + 1):] if p not in own]
        pools.append((example.question, (own + others)[:max(POOLS)]))
    return pools


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a quick check: 2 questions")
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--threads", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--judge", type=Path, default=None, help="a judge folder (default: the shipped one)")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    n = 2 if args.small else args.questions

    import torch

    from models.config import Settings
    from models.registry import get_embedder
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    torch.set_num_threads(args.threads)
    judge = RelevanceJudge(args.judge or shipped_judge_path(), n_threads=args.threads)
    embedder = get_embedder(Settings())
    pools = load_pools(args.data, n)
    lengths = [len(judge.tokenizer.encode(q, p).ids) for q, ps in pools for p in ps]
    print(f"judge {judge.name} (threshold {judge.threshold:.3f}), embedder {embedder.name}; "
          f"{n} questions, {args.threads} of {os.cpu_count()} cpu threads; "
          f"{sum(lengths) / len(lengths):.0f} tokens per (question, passage) on average")
    judge.score(*pools[0])  # warm-up: first-call allocations
    embedder.encode(pools[0][1][:8])
    runs = {"judge": lambda q, ps: judge.score(q, ps), "embedder": lambda q, ps: embedder.encode(ps)}
    if judge.selector is not None:
        from assistant.retrieval.pool_features import PoolPassage
        from assistant.retrieval.pool_select import selector_scores

        def select(q, ps):  # pool order stands in for the search order
            found = [PoolPassage(*p.split(": ", 1), rank, 1.0 / (61 + rank)) if ": " in p
                     else PoolPassage("", p, rank, 1.0 / (61 + rank)) for rank, p in enumerate(ps)]
            judged = judge.score(q, ps) if judge.selector.uses_judge else None
            selector_scores(judge.selector, q, found, judged)

        runs["selector"] = select
        if judge.selector.expansions:
            runs["expansion queries"] = lambda q, ps: embedder.encode([f"{q} {p}"
                                                                       for p in ps[:judge.selector.expansions]])
    seconds = {(name, k): 0.0 for name in runs for k in POOLS}
    for i, (question, pool) in enumerate(pools, 1):
        for k in POOLS:
            for name, run in runs.items():
                started = time.perf_counter()
                run(question, pool[:k])
                seconds[(name, k)] += time.perf_counter() - started
        print(f"  question {i}/{n}", flush=True)

    print("\n| model | pool | ms per question | passages (pairs) per second |")
    print("| --- | --- | --- | --- |")
    rates = {}
    for (name, k), total in seconds.items():
        rates[(name, k)] = n * k / total
        print(f"| {name} | {k} | {1000 * total / n:.0f} | {rates[(name, k)]:.0f} |")
    for k in POOLS:
        print(f"RATIO judge / embedder throughput, pool {k}: {rates[('judge', k)] / rates[('embedder', k)]:.2f}")
        if "selector" in runs:
            whole = seconds[("selector", k)] + seconds.get(("expansion queries", k), 0.0)
            print(f"RATIO selector (with its expansion queries, if any) / embedder, ms per question, pool {k}: "
                  f"{whole / seconds[('embedder', k)]:.3f}")
            print(f"RATIO selector / judge, ms per question, pool {k}: {whole / seconds[('judge', k)]:.3f}")


if __name__ == "__main__":
    main()
