"""Reader cost per question for every strategy, and what prompt-prefix reuse saves.

Builds a small index (the pooled paragraphs of the first --pool HotpotQA questions) in a temp
folder, then runs --questions questions through each strategy with two readers loaded from the
same GGUF: one reusing the evaluated prompt prefix (the default), one with prefix_cache=False.
The two runs of a question follow each other, so machine noise hits both alike. Prints per
question: reader calls, prompt tokens, evaluated tokens, completion tokens, retrievals and wall
seconds (and process CPU seconds, steadier on a busy machine); then per strategy the RATIO
off/on of evaluated tokens, wall and CPU time, and whether the answers (and every draft and
strategy step) were identical with and without the cache.

Strategies run with small options (see SPECS) so that the default size (3 questions) finishes in
several minutes on 2 idle cores; --small runs 1 question.

    .venv/bin/python benchmarks/bench_strategies.py [--small] [--questions N] [--reader PATH]
        [--strategies direct,rag] [--threads N] [--k 3]

`--strategies rag,default --k 10 --questions 10 --reader QWEN` prints the default pipeline's time
per question against plain rag's at the product's k, in the same run (RATIO default / rag).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.context import RunContext  # noqa: E402
from assistant.events.core import Answer, Detail, Draft  # noqa: E402
from assistant.runner import run_question  # noqa: E402
from assistant.strategies import make_strategy  # noqa: E402
from models.config import Settings  # noqa: E402

DATASET = Path("/work/shared/data/hotpotqa/hotpotqa_dev_distractor_500.ircot_format.jsonl")
# Small options: the cost structure of each method, at a size a laptop runs in minutes.
SPECS = {
    "direct": "direct",
    "rag": "rag",
    "ra-isf": "ra-isf:depth=1",
    "refeed": "refeed:drafts=2",
    "rq-rag": "rq-rag:depth=1",
    "llmqa": "llmqa:expansions=2,candidates=6,window=4,step=2",
    "default": "default",
}
SAMPLED = {"refeed", "llmqa"}  # seeded sampling: identical only if the logits are
COLUMNS = ("reader_calls", "prompt_tokens", "evaluated_tokens", "completion_tokens", "retrievals")


def build_index(dataset: Path, pool: int, folder: Path, settings: Settings):
    """Index the pooled paragraphs of the first `pool` questions through the passage pipeline."""
    from index_builder.datasets import load_dataset
    from index_builder.dataset_corpus import pooled_paragraphs
    from index_builder.passages import index_passages
    from index_builder.store import IndexStore
    from models import registry

    examples = load_dataset(dataset, limit=pool)
    passages = folder / "pool.jsonl"
    with passages.open("w", encoding="utf-8") as fh:
        for para in pooled_paragraphs(examples):
            fh.write(json.dumps({"id": para.key, "title": para.title, "text": para.text}) + "\n")
    embedder = registry.get_embedder(settings)
    store = IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim)
    summary = index_passages(store, embedder, passages)
    return examples, embedder, store, summary.passages


def make_context(settings: Settings, reader, embedder, store) -> RunContext:
    from assistant.retrieval.retriever import HybridRetriever
    from models import registry
    from models.judges.prompted import ReaderJudge

    relevance = registry.get_relevance_judge(settings) if settings.relevance_judge == "trained" else None
    return RunContext(settings=settings, reader=reader, judge=ReaderJudge(reader),
                      retriever=HybridRetriever(store, embedder), relevance=relevance)


def run_once(question: str, spec: str, ctx: RunContext) -> dict:
    started, cpu = time.perf_counter(), time.process_time()
    events = list(run_question(question, make_strategy(spec), ctx))
    answer = events[-1]
    assert isinstance(answer, Answer)
    # Everything the reader wrote on the way, to tell where two runs parted.
    trail = [e.text for e in events if isinstance(e, Draft)]
    trail += [json.dumps(e.data, sort_keys=True) for e in events if isinstance(e, Detail)]
    return {**{c: answer.counts[c] for c in COLUMNS}, "seconds": time.perf_counter() - started,
            "cpu": time.process_time() - cpu, "answer": answer.text, "trail": trail}


def first_difference(on: list[str], off: list[str]) -> str:
    at = next((i for i, (a, b) in enumerate(zip(on, off)) if a != b), min(len(on), len(off)))
    pick = lambda trail: trail[at][:300] if at < len(trail) else "(nothing)"
    return f"    first difference at step {at}:\n      on:  {pick(on)}\n      off: {pick(off)}"


def ratio(off: float, on: float) -> str:
    return f"{off / on:.2f}" if on else "n/a"


def compare(name: str, examples, contexts: dict) -> tuple:
    """Each question with the cache on and off; totals and how many runs were identical."""
    totals = {cache: {"evaluated_tokens": 0, "seconds": 0.0, "cpu": 0.0, "reader_calls": 0} for cache in contexts}
    same_answers = same_trails = 0
    for i, example in enumerate(examples):
        runs = {}
        for cache in ((True, False) if i % 2 == 0 else (False, True)):  # neither always goes first
            runs[cache] = r = run_once(example.question, SPECS[name], contexts[cache])
            for key in totals[cache]:
                totals[cache][key] += r[key]
            cells = " ".join(f"{r[c]:>6}" for c in COLUMNS)
            print(f"{name:9} {i + 1:>2} {'on' if cache else 'off':5} {cells} {r['seconds']:>6.1f} "
                  f"{r['cpu']:>6.1f}  {r['answer'][:40]!r}", flush=True)
        if runs[True]["trail"] != runs[False]["trail"]:
            print(first_difference(runs[True]["trail"], runs[False]["trail"]))
        same_answers += runs[True]["answer"] == runs[False]["answer"]
        same_trails += runs[True]["trail"] == runs[False]["trail"]
    return name, totals[True], totals[False], same_answers, same_trails


def print_summary(summary: list[tuple], n: int) -> None:
    print(f"\nper question, mean over {n} (RATIO = without cache / with cache)")
    print(f"{'strategy':9} {'calls':>6} {'eval on':>8} {'eval off':>8} {'RATIO':>6} {'s on':>6} {'s off':>6} "
          f"{'RATIO':>6} {'cpu on':>6} {'cpu off':>7} {'RATIO':>6}  same answers / steps")
    for name, on, off, same_answers, same_trails in summary:
        note = " (seeded sampling)" if name in SAMPLED else ""
        print(f"{name:9} {on['reader_calls'] / n:>6.1f} {on['evaluated_tokens'] / n:>8.0f} "
              f"{off['evaluated_tokens'] / n:>8.0f} {ratio(off['evaluated_tokens'], on['evaluated_tokens']):>6} "
              f"{on['seconds'] / n:>6.1f} {off['seconds'] / n:>6.1f} {ratio(off['seconds'], on['seconds']):>6} "
              f"{on['cpu'] / n:>6.1f} {off['cpu'] / n:>7.1f} {ratio(off['cpu'], on['cpu']):>6}  "
              f"{same_answers}/{n} / {same_trails}/{n}{note}")
    wall_on, wall_off, cpu_on, cpu_off = (sum(s[j][key] for s in summary) for key in ("seconds", "cpu")
                                          for j in (1, 2))
    print(f"\nRATIO without/with prefix reuse, all strategies: wall {ratio(wall_off, wall_on)}, "
          f"cpu {ratio(cpu_off, cpu_on)}")
    by_name = {name: on for name, on, *_ in summary}
    if "default" in by_name and "rag" in by_name:  # issue 16's bound: the default at most 3x rag's time
        print(f"RATIO default / rag per question (prefix reuse on): wall "
              f"{ratio(by_name['default']['seconds'], by_name['rag']['seconds'])}, cpu "
              f"{ratio(by_name['default']['cpu'], by_name['rag']['cpu'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="1 question instead of 3")
    parser.add_argument("--questions", type=int, default=None, help="questions per strategy (default 3)")
    parser.add_argument("--pool", type=int, default=20, help="questions whose paragraphs form the index")
    parser.add_argument("--reader", type=Path, default=None, help="a GGUF reader (default: bundled SmolLM2)")
    parser.add_argument("--strategies", default=",".join(SPECS), help="comma-separated subset of " + ",".join(SPECS))
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: all cores)")
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--k", type=int, default=3, help="passages per retrieval (the product's default is 10)")
    args = parser.parse_args()
    count = args.questions or (1 if args.small else 3)
    names = [n.strip() for n in args.strategies.split(",") if n.strip()]
    unknown = [n for n in names if n not in SPECS]
    if unknown:
        parser.error(f"unknown strategies: {', '.join(unknown)}")

    from models import registry
    from models.reader.llama_reader import Reader

    with tempfile.TemporaryDirectory(prefix="bench-strategies-") as tmp:
        settings = Settings(data_dir=Path(tmp), reader=args.reader, k=args.k, depth=1, max_answer_tokens=32,
                            n_threads=args.threads)
        t0 = time.perf_counter()
        examples, embedder, store, written = build_index(args.dataset, args.pool, Path(tmp), settings)
        print(f"index: {written} passages from {args.pool} questions in {time.perf_counter() - t0:.1f}s")
        path = registry.reader_path(settings)
        readers = {cache: Reader(path, n_ctx=settings.n_ctx, n_threads=settings.n_threads, prefix_cache=cache)
                   for cache in (True, False)}
        contexts = {cache: make_context(settings, r, embedder, store) for cache, r in readers.items()}
        for reader in readers.values():  # the first call pays for page faults and allocations
            reader.generate([{"role": "user", "content": "Hello"}], max_tokens=4)
        print(f"reader: {path.name}, threads: {settings.n_threads or os.cpu_count()}, questions: {count}\n")
        print(f"{'strategy':9} {'q':>2} {'cache':5} " + " ".join(f"{c.split('_')[0][:6]:>6}" for c in COLUMNS)
              + f" {'secs':>6} {'cpu s':>6}  answer")
        summary = [compare(name, examples[:count], contexts) for name in names]
        print_summary(summary, min(count, len(examples)))


if __name__ == "__main__":
    main()
