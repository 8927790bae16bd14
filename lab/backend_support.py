"""Retrieval quality of each embedder backend on the report sets: pool support recall and how
often the default pipeline's read set changes (no reader involved).

    .venv/bin/python lab/backend_support.py --backend onnx --data-dir /tmp/d-onnx --out onnx.json
    .venv/bin/python lab/backend_support.py --compare torch.json onnx.json model2vec.json

A run embeds each report set's pooled corpus with one backend (the index `assistant index
dataset FILE` builds, under --data-dir: one data dir per backend, since an index holds one
kind of vector; reused when present) and records per question the hybrid top-40 (the pool) and
the selector's top 5 of that pool and its expansion searches (what `judge_pool` hands the reader
on the default pipeline's first hop), as keys of the supporting-paragraph kind. --compare
prints, for each run, the share of questions with all supporting paragraphs in the pool (top
40) and in the top 5, and the number of questions whose top 5 differs from the first run's.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from research.judge_training.relevance_data import REPORT_FILES, check_data_dir, report_questions  # noqa: E402
from research.judge_training.relevance_metrics import all_found  # noqa: E402
from research.judge_training.relevance_pairs import key_of_path, supporting_keys  # noqa: E402
from models.errors import AssistantError  # noqa: E402

POOL = 40
READ = 5


def chain_top(text: str, merged, scores, retriever, scorer) -> list[str]:
    """The chain selector's READ passages (default:chain's first read set), with its hop searches."""
    from assistant.retrieval.chain_select import ChainCandidate, select_chain
    from research.judge_training.chain_fit import run_plain

    by_id = {p.id: p for p in merged}

    def search(query: str):
        found = retriever.search(query, scorer.search_depth)
        for p in found:
            by_id.setdefault(p.id, p)
        return [ChainCandidate(p.id, p.title, p.text, 0.0, False) for p in found]
        yield  # a generator, as select_chain expects (the product's search yields its step events)

    picks = run_plain(select_chain(text, [ChainCandidate(p.id, p.title, p.text, s) for p, s in zip(merged, scores)],
                                   scorer, READ, search))
    return [key_of_path(by_id[p.candidate.key].path) for p in picks]


def read_sets(questions, retriever, judge) -> list[dict]:
    """Per question: support keys, the pool's keys, the selector's top READ keys (and the chain
    selector's, when the judge ships one)."""
    from assistant.retrieval.pool_select import expansion_queries, merge_pool, selector_scores
    from models.judges.relevance import passage_text

    selector = judge.selector
    out = []
    for question in questions:
        text = question.example.question
        pool = retriever.search(text, POOL)
        expansions = [retriever.search(q, selector.expansion_depth)
                      for q in expansion_queries(text, pool, selector.expansions)]
        merged, found = merge_pool(pool, expansions)
        judged = judge.score(text, [passage_text(p.title, p.text) for p in merged]) if selector.uses_judge else None
        scores = selector_scores(selector, text, found, judged)
        order = sorted(range(len(merged)), key=lambda i: -scores[i])
        row = {"question": text, "support": sorted(supporting_keys(question)),
               "pool": [key_of_path(p.path) for p in pool],
               "top": [key_of_path(merged[i].path) for i in order[:READ]]}
        if getattr(judge, "chain", None) is not None:
            row["chain"] = chain_top(text, merged, scores, retriever, judge.chain)
        out.append(row)
    return out


def run(args) -> None:
    from index_builder.dataset_corpus import build_dataset_corpus
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    data = check_data_dir(args.data)
    settings = load_settings(data_dir=args.data_dir, embedder_backend=args.backend)
    embedder = registry.get_embedder(settings)
    judge = RelevanceJudge(shipped_judge_path(), n_threads=settings.n_threads)
    result = {"backend": args.backend, "model_id": embedder.model_id, "sets": {}}
    for name, questions in report_questions(data).items():
        if args.sets and name not in args.sets.split(","):
            continue
        started = time.perf_counter()
        index, passages = build_dataset_corpus(data / REPORT_FILES[name].path, settings.data_dir, embedder)
        built = time.perf_counter() - started
        retriever = HybridRetriever(IndexStore.open(index), embedder, candidates=POOL)
        result["sets"][name] = {"index_seconds": built, "passages": passages,
                                "questions": read_sets(questions, retriever, judge)}
        print(f"{name}: {len(questions)} questions, index {built:.0f}s", file=sys.stderr, flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1))


def compare(paths: list[Path]) -> None:
    runs = [json.loads(Path(p).read_text()) for p in paths]
    base = runs[0]
    print(f"| backend | set | n | all support in pool top-{POOL} | all support in selector top-{READ} "
          f"| all support in chain top-{READ} | questions whose top-{READ} differs from {base['backend']} |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in runs:
        for name, s in r["sets"].items():
            if name not in base["sets"]:
                continue
            qs, ref = s["questions"], base["sets"][name]["questions"]
            n = len(qs)
            pool = sum(all_found(q["pool"], set(q["support"]), POOL) for q in qs)
            top = sum(all_found(q["top"], set(q["support"]), READ) for q in qs)
            differ = sum(set(q["top"]) != set(b["top"]) for q, b in zip(qs, ref))
            chain = (f"{100 * sum(all_found(q['chain'], set(q['support']), READ) for q in qs) / n:.0f}%"
                     if all("chain" in q for q in qs) else "-")
            print(f"| {r['backend']} | {name} | {n} | {100 * pool / n:.0f}% | {100 * top / n:.0f}% | {chain} | {differ} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data", help="the shared data folder")
    parser.add_argument("--backend", default="onnx")
    parser.add_argument("--data-dir", type=Path, help="where the backend's pooled corpora are (built when missing)")
    parser.add_argument("--out", type=Path, help="per-question read sets (JSON)")
    parser.add_argument("--sets", default="", help="only these report sets (HotpotQA,MuSiQue; default both)")
    parser.add_argument("--compare", type=Path, nargs="+", help="runs' JSON files, the baseline first")
    args = parser.parse_args()
    if args.compare:
        compare(args.compare)
    elif args.data_dir and args.out:
        run(args)
    else:
        parser.error("give --data-dir and --out (a run), or --compare RUN.json ...")


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
