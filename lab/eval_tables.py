"""Print EVALUATION.md's tables from committed per-question results, without running a model.

    .venv/bin/python lab/eval_tables.py DATASET RESULTS_DIR --reader qwen2.5-coder-1.5b-instruct-q4_k_m \
        --first 100 --strategies direct,rag,ra-isf,default

Only the first N questions of DATASET (in file order) are counted, and a strategy is listed only
with the questions it has; `--against rag` adds paired EM wins/losses per strategy against it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from index_builder.datasets import load_dataset  # noqa: E402
from research.evaluation.harness import slug  # noqa: E402
from research.evaluation.report import em_wins_losses, markdown_report, summarize  # noqa: E402
from research.evaluation.results import ResultsFile  # noqa: E402
from models.errors import AssistantError  # noqa: E402


def paired(records: dict, baseline: dict) -> str:
    wins, losses, shared = em_wins_losses(records, baseline)
    return f"{wins} wins, {losses} losses in EM over {shared} shared questions"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("results", type=Path, help="folder of <strategy>__<reader>.jsonl files")
    parser.add_argument("--reader", required=True, help="reader name as in the file names")
    parser.add_argument("--strategies", required=True, help="comma-separated, as given to `assistant eval`")
    parser.add_argument("--first", type=int, default=100)
    parser.add_argument("--against", default="", help="strategy to compare EM with, question by question")
    args = parser.parse_args()

    ids = [example.id for example in load_dataset(args.dataset, limit=args.first)]
    chosen: dict[str, dict] = {}
    for spec in args.strategies.split(","):
        records = ResultsFile(args.results / f"{slug(spec)}__{args.reader}.jsonl").records
        chosen[spec] = {i: records[i] for i in ids if i in records}
    if not any(chosen.values()):
        raise AssistantError(f"no results for reader {args.reader!r} and strategies {args.strategies!r} "
                             f"in {args.results}")
    notes = []
    if args.against:
        baseline = chosen.get(args.against) or {}
        notes = [f"{spec} vs {args.against}: {paired(records, baseline)}"
                 for spec, records in chosen.items() if spec != args.against and records]
    summaries = [summarize(spec, list(records.values())) for spec, records in chosen.items() if records]
    print(markdown_report(f"{args.reader}, first {args.first} questions", summaries, notes))


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
