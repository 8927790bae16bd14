"""How often ALL supporting paragraphs reach the reader: hybrid top-k vs the relevance judge's top-k
and the passage selector's choice from a wide hybrid pool, on the report sets (no reader involved).

    .venv/bin/python lab/judge_support.py [--data ../shared/data] [--judge FOLDER]
        [--pools 30] [--tops 3,5,8] [--hybrid 5,10] [--first N] [--no-cross-encoder]

Report sets (issue 15): the first 100 ircot HotpotQA questions and musique_ans_dev_100.kag, each
less any question of a reserved file. Each is searched in its own pooled corpus (the index
`assistant index dataset FILE` builds, under the data dir; built here when missing). Support is
matched by paragraph (title and text), as the judge's training labels are; on HotpotQA that is
the same as hotpotqa_support.py's title match. "threshold" rows are what a run-time selection
hands over: the passages at or above the threshold, at least the smallest --tops and at most the
largest, with the mean count. The selector rows use the judge folder's selector.json (its
expansion searches included), as `judge_pool` does in the product.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from research.judge_training.relevance_data import REPORT_FILES, report_questions  # noqa: E402
from research.judge_training.relevance_metrics import all_found  # noqa: E402
from research.judge_training.relevance_pairs import key_of_path, supporting_keys  # noqa: E402
from models.errors import AssistantError  # noqa: E402


class Tally:
    def __init__(self):
        self.hits: dict[str, float] = {}
        self.means: dict[str, float] = {}

    def count(self, label: str, found: bool) -> None:
        self.hits[label] = self.hits.get(label, 0) + found

    def add(self, label: str, value: float) -> None:
        self.means[label] = self.means.get(label, 0) + value


def ranked_keys(passages, scores) -> list[str]:
    order = sorted(range(len(passages)), key=lambda i: -scores[i])
    return [key_of_path(passages[i].path) for i in order]


def by_threshold(tally: Tally, label: str, keys, scores, threshold, support, tops) -> None:
    kept = min(max(sum(s >= threshold for s in scores), min(tops)), max(tops), len(keys))
    tally.count(f"{label} >= threshold, {min(tops)}-{max(tops)}", all_found(keys, support, kept))
    tally.add(f"{label} >= threshold: mean passages", kept)


def measure(questions, retriever, judge, pools: list[int], tops: list[int], hybrid: list[int],
            cross_encoder: bool) -> dict[str, float]:
    """Row label -> share of questions with all supporting paragraphs among the passages (or a mean)."""
    from assistant.retrieval.pool_select import expansion_queries, merge_pool, selector_scores
    from models.judges.relevance import passage_text

    selector = judge.selector
    tally = Tally()
    for question in questions:
        text, support = question.example.question, supporting_keys(question)
        # One search: with candidates >= every k, search(q, k) is the first k of search(q, widest)
        widest = retriever.search(text, max(pools + hybrid))
        for k in hybrid:
            tally.count(f"hybrid top-{k}", all_found([key_of_path(p.path) for p in widest[:k]], support, k))
        for pool_size in pools:
            pool = widest[:pool_size]
            keys = [key_of_path(p.path) for p in pool]
            tally.count(f"hybrid top-{pool_size} (the pool)", all_found(keys, support, pool_size))
            judged = None
            if cross_encoder:
                started = time.perf_counter()
                judged = judge.score(text, [passage_text(p.title, p.text) for p in pool])
                tally.add(f"cross-encoder ms per question (pool {pool_size})", 1000 * (time.perf_counter() - started))
                ranked = ranked_keys(pool, judged)
                for k in tops:
                    tally.count(f"cross-encoder top-{k} of {pool_size}", all_found(ranked, support, k))
                by_threshold(tally, f"cross-encoder of {pool_size}", ranked, judged, judge.threshold, support, tops)
            if selector is None:
                continue
            started = time.perf_counter()
            expansions = [retriever.search(q, selector.expansion_depth)
                          for q in expansion_queries(text, pool, selector.expansions)]
            merged, found = merge_pool(pool, expansions)
            searched = time.perf_counter()
            if selector.uses_judge:
                judged = judge.score(text, [passage_text(p.title, p.text) for p in merged])
            scores = selector_scores(selector, text, found, judged)
            done = time.perf_counter()
            label = f"of {pool_size} + {selector.expansions} searches" if selector.expansions else f"of {pool_size}"
            merged_keys = [key_of_path(p.path) for p in merged]
            if selector.expansions:
                tally.count(f"pool {pool_size} + {selector.expansions} expansion searches (mean size shown below)",
                            all_found(merged_keys, support, len(merged_keys)))
                tally.add(f"pool {pool_size} + expansions: mean passages", len(merged_keys))
                tally.add(f"expansion searches ms per question (pool {pool_size})", 1000 * (searched - started))
            tally.add(f"selector ms per question {label}", 1000 * (done - searched))
            ranked = ranked_keys(merged, scores)
            for k in tops:
                tally.count(f"selector top-{k} {label}", all_found(ranked, support, k))
            by_threshold(tally, f"selector {label}", ranked, scores, selector.threshold, support, tops)
    n = len(questions)
    return {**{label: value / n for label, value in tally.hits.items()},
            **{f"mean: {label}": value / n for label, value in tally.means.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data", help="the shared data folder")
    parser.add_argument("--judge", type=Path, default=None, help="a relevance judge folder (default: the shipped one)")
    parser.add_argument("--pools", default="30")
    parser.add_argument("--tops", default="3,5,8")
    parser.add_argument("--hybrid", default="5,10")
    parser.add_argument("--first", type=int, default=None, help="only the first N questions of each set")
    parser.add_argument("--no-cross-encoder", action="store_true", help="leave out the cross-encoder's own rows")
    args = parser.parse_args()
    pools, tops, hybrid = ([int(x) for x in value.split(",")] for value in (args.pools, args.tops, args.hybrid))

    from research.judge_training.relevance_data import check_data_dir
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.dataset_corpus import build_dataset_corpus
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    data = check_data_dir(args.data)
    settings = load_settings()
    embedder = registry.get_embedder(settings)
    judge = RelevanceJudge(args.judge or shipped_judge_path(), n_threads=settings.n_threads)
    columns: dict[str, dict[str, float]] = {}
    for name, questions in report_questions(data).items():
        questions = questions[:args.first] if args.first else questions
        print(f"{name}: {len(questions)} questions ...", file=sys.stderr, flush=True)
        index, _ = build_dataset_corpus(data / REPORT_FILES[name].path, settings.data_dir, embedder)
        retriever = HybridRetriever(IndexStore.open(index), embedder, candidates=max(pools + hybrid))
        columns[f"{name} ({len(questions)})"] = measure(questions, retriever, judge, pools, tops, hybrid,
                                                        not args.no_cross_encoder)
    print(f"judge: {judge.name}, threshold {judge.threshold:.3f}" +
          (f"; selector threshold {judge.selector.threshold:.3f}" if judge.selector else "") + "\n")
    print("| passages handed to the reader | " + " | ".join(columns) + " |")
    print("| --- |" + " --- |" * len(columns))
    for label in next(iter(columns.values())):
        cells = [(f"{value[label]:.1f}" if label.startswith("mean") else f"{100 * value[label]:.0f}%")
                 for value in columns.values()]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
