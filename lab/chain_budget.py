"""Chain recall of the first read set by read budget: how many passages would the reader need to read
to have the whole chain? (issue 32; no reader involved)

For each training question of one file, in its pooled eval corpus: the product's first hop (hybrid
search of settings.pool, the selector's expansion searches, judge_pool) and then one greedy chain of
--depth passages (chain_read.chain_read_set, with its hop searches); the chain's first b passages
are the read set at budget b (the picks are greedy, so a longer chain starts with the shorter one).
Prints the share of questions with every supporting paragraph in the pool, in the product's first
read set (the selector's kept count, re-picked as a chain), and at each budget.
The shipped chain scorer was fitted on these training questions: its rows are optimistic (the
held-out ones are lab/chain_recall.py's).

    ASSISTANT_DATA_DIR=DIR .venv/bin/python lab/chain_budget.py musique/musique_ans_train_100.hipporag.json \
        --corpus DIR/datasets/musique_ans_train_100.hipporag-<hash> [--first 100] [--budgets 3,5,8,15]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.errors import AssistantError  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a training file, as relevance_data names it (e.g. musique/musique_ans_train_100.hipporag.json)")
    parser.add_argument("--corpus", type=Path, required=True, help="that file's pooled eval corpus (an index folder)")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--first", type=int, default=100)
    parser.add_argument("--budgets", default="3,4,5,6,8,10,15")
    args = parser.parse_args()
    try:
        budgets = sorted({int(b) for b in args.budgets.split(",")})
    except ValueError:
        raise SystemExit(f"error: --budgets {args.budgets!r}: write whole numbers separated by commas") from None
    try:
        print(measure(args, budgets))
    except AssistantError as exc:
        raise SystemExit(f"error: {exc}") from None


def measure(args, budgets: list[int]) -> str:
    from assistant.retrieval.chain_read import chain_read_set
    from research.judge_training.chain_fit import run_plain
    from research.judge_training.relevance_data import check_data_dir, training_questions
    from research.judge_training.relevance_pairs import key_of_path, supporting_keys
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    from lab.pipeline_misses import Replay

    questions = [q for q in training_questions(check_data_dir(args.data)) if q.file == args.file][:args.first]
    if not questions:
        raise AssistantError(f"{args.file} has no training questions (report and reserved files have none)")
    if not args.corpus.is_dir():
        raise AssistantError(f"no corpus index at {args.corpus}")
    settings = load_settings()
    embedder = registry.get_embedder(settings)
    replay = Replay(HybridRetriever(IndexStore.open(args.corpus), embedder),
                    RelevanceJudge(shipped_judge_path(), n_threads=settings.n_threads), settings)
    pool = first = 0
    at = dict.fromkeys(budgets, 0)
    for question in questions:
        support = supporting_keys(question)
        ranked = replay.ranked(question.example.question)
        pool += support <= {key_of_path(p.path) for p in ranked.pool}
        first += support <= {key_of_path(p.path) for p in ranked.kept}
        chain = run_plain(chain_read_set(replay.ctx, question.example.question, ranked, budget=max(budgets)))
        keys = [key_of_path(p.path) for p in chain.kept]
        for b in budgets:
            at[b] += support <= set(keys[:b])
    n = len(questions)
    cells = " | ".join(f"{100 * at[b] / n:.0f}%" for b in budgets)
    return (f"| {args.file} ({n}) | {100 * pool / n:.0f}% | {100 * first / n:.0f}% | {cells} |\n"
            f"(columns: pool holds all | the product's first read set | at {', '.join(map(str, budgets))} passages)")


if __name__ == "__main__":
    main()
