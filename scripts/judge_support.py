"""How often ALL supporting paragraphs reach the reader: hybrid top-k vs the relevance judge's top-k
from a wide hybrid pool, on the report sets (no reader involved).

    .venv/bin/python scripts/judge_support.py [--data ../shared/data] [--judge FOLDER]
        [--pools 30,50] [--tops 3,5,8] [--hybrid 5,10] [--first N]

Report sets (issue 15): the first 100 ircot HotpotQA questions and musique_ans_dev_100.kag, each
less any question of a reserved file. Each is searched in its own pooled corpus (the index
`assistant index dataset FILE` builds, under the data dir; built here when missing). Support is
matched by paragraph (title and text), as the judge's training labels are; on HotpotQA that is
the same as hotpotqa_support.py's title match. The last row per pool is what a run-time
selection would hand over: the judge's passages at or above its threshold, at least the
smallest --tops and at most the largest, with the mean count.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.judge_training.relevance_data import REPORT_FILES, report_questions  # noqa: E402
from assistant.judge_training.relevance_metrics import all_found  # noqa: E402
from assistant.judge_training.relevance_pairs import key_of_path, supporting_keys  # noqa: E402
from assistant.retriever import fuse  # noqa: E402
from models.errors import AssistantError  # noqa: E402


def measure(questions, retriever, judge, pools: list[int], tops: list[int], hybrid: list[int]) -> dict[str, float]:
    """Row label -> share of questions with all supporting paragraphs among the passages."""
    from models.relevance_judge import passage_text

    hits: dict[str, float] = {}
    kept_total = {pool: 0 for pool in pools}

    def count(label: str, found: bool) -> None:
        hits[label] = hits.get(label, 0) + found

    for question in questions:
        text, support = question.example.question, supporting_keys(question)
        for k in hybrid:
            count(f"hybrid top-{k}", all_found([key_of_path(p.path) for p in retriever.search(text, k)], support, k))
        scores: dict[str, float] = {}  # passage id -> score, whichever pool it is in
        for pool in pools:
            passages = retriever.search(text, pool)
            new = [p for p in passages if p.id not in scores]
            scores.update(zip([p.id for p in new], judge.score(text, [passage_text(p.title, p.text) for p in new])))
            # keys name paragraphs: a long one is indexed as several passages under one key
            keys = [key_of_path(p.path) for p in passages]
            pool_scores = [scores[p.id] for p in passages]
            judge_rank = sorted(range(len(keys)), key=lambda i: -pool_scores[i])
            ranked = [keys[i] for i in judge_rank]
            count(f"hybrid top-{pool} (the pool)", all_found(keys, support, pool))
            for k in tops:
                count(f"judge top-{k} of {pool}", all_found(ranked, support, k))
            # the judge's order and the search order fused by reciprocal rank, as hybrid search fuses its two
            fused = [passages[int(i)] for i, _ in fuse([[str(i) for i in judge_rank], [str(i) for i in range(len(keys))]],
                                                      len(keys))]
            for k in tops:
                count(f"judge+search fused top-{k} of {pool}", all_found([key_of_path(p.path) for p in fused], support, k))
            above = sum(value >= judge.threshold for value in pool_scores)
            kept = min(max(above, min(tops)), max(tops))
            kept_total[pool] += kept
            count(f"judge >= threshold, {min(tops)}-{max(tops)} of {pool}", all_found(ranked, support, kept))
    n = len(questions)
    shares = {label: value / n for label, value in hits.items()}
    for pool in pools:
        shares[f"mean passages kept of {pool}"] = kept_total[pool] / n
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data", help="the shared data folder")
    parser.add_argument("--judge", type=Path, default=None, help="a relevance judge folder (default: the shipped one)")
    parser.add_argument("--pools", default="30,50")
    parser.add_argument("--tops", default="3,5,8")
    parser.add_argument("--hybrid", default="5,10")
    parser.add_argument("--first", type=int, default=None, help="only the first N questions of each set")
    args = parser.parse_args()
    pools, tops, hybrid = ([int(x) for x in value.split(",")] for value in (args.pools, args.tops, args.hybrid))

    from assistant.judge_training.relevance_data import check_data_dir
    from assistant.retriever import HybridRetriever
    from assistant.evaluation.corpus import build_dataset_corpus
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings
    from models.relevance_judge import RelevanceJudge, shipped_judge_path

    data = check_data_dir(args.data)
    settings = load_settings()
    embedder = registry.get_embedder(settings)
    judge = RelevanceJudge(args.judge or shipped_judge_path(), n_threads=settings.n_threads)
    columns: dict[str, dict[str, float]] = {}
    for name, questions in report_questions(data).items():
        questions = questions[:args.first] if args.first else questions
        print(f"{name}: {len(questions)} questions ...", file=sys.stderr, flush=True)
        index, _ = build_dataset_corpus(data / REPORT_FILES[name].path, settings.data_dir, embedder)
        retriever = HybridRetriever(IndexStore.open(index), embedder)
        columns[f"{name} ({len(questions)})"] = measure(questions, retriever, judge, pools, tops, hybrid)
    print(f"judge: {judge.name}, threshold {judge.threshold:.3f}\n")
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
