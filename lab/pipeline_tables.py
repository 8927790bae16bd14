"""Print EVALUATION.md's default-pipeline tables from committed results, without running a model.

    .venv/bin/python lab/pipeline_tables.py DATASET --first 100 --exclude RESERVED \
        --row rag@10=lab/results/musique_k10/rag__qwen2.5-coder-1.5b-instruct-q4_k_m.jsonl \
        --row default=lab/results/musique_default/default__qwen2.5-coder-1.5b-instruct-q4_k_m.jsonl \
        --against rag@10 --pipeline default --rerank rag:rerank

Each --row is LABEL=RESULTS.jsonl; only the first N questions of DATASET less those of the
--exclude files count. Besides the measured rows, the ablations that the default pipeline's own
records determine are printed as "derived" rows (no reader run): each stage answer is recorded
(`drafts`, `refeed`), and a pipeline without a later stage answers exactly what the earlier stage
wrote. `--rerank LABEL` (rag:rerank's row) gives "no hop, no ReFeed": the gate's answer where it
answered, else rag:rerank's (the same search, selector and prompt as the pipeline's first hop).
"""
from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research.evaluation import metrics  # noqa: E402
from index_builder.datasets import load_dataset  # noqa: E402
from research.evaluation.question_set import QuestionSet  # noqa: E402
from research.evaluation.results import ResultsFile  # noqa: E402
from assistant.strategies.refeed import prefer_refined  # noqa: E402
from models.errors import AssistantError  # noqa: E402


def scored(record: dict, text: str) -> dict:
    return {**record, "prediction": text, "scores": metrics.score(text, record["gold"], record["kind"])}


def without_refeed(record: dict) -> str:
    decision = record.get("refeed")
    return decision["draft"]["text"] if decision else record["prediction"]


def keep_rule(rule: str):
    """The answer ReFeed would have kept under `rule`, from the recorded candidates."""
    def choose(record: dict) -> str:
        d = record.get("refeed")
        if not d:
            return record["prediction"]
        draft, refined = d["draft"], d["refined"]
        chosen, _ = prefer_refined(rule, draft["avg_prob"], refined["avg_prob"], draft.get("support") or 0.0,
                                   refined.get("support") or 0.0)
        return refined["text"] if chosen else draft["text"]
    return choose


def row(label: str, records: list[dict], baseline: dict[str, dict] | None, measured: bool) -> str:
    n = len(records)
    em = 100 * sum(r["scores"]["em"] for r in records) / n
    f1 = 100 * sum(r["scores"]["f1"] for r in records) / n
    cells = [label, str(n), f"{em:.1f}", f"{f1:.1f}"]
    if measured:
        counts = [r.get("counts") or {} for r in records]
        seconds = [r["seconds"] for r in records]
        cells += [f"{statistics.mean(c.get('reader_calls', 0) for c in counts):.2f}",
                  f"{statistics.mean(c.get('prompt_tokens', 0) for c in counts):.0f}",
                  f"{statistics.mean(seconds):.1f}", f"{statistics.median(seconds):.1f}"]
    else:
        cells += ["-"] * 4
    if baseline is not None:
        pairs = [(r["scores"]["em"], baseline[r["id"]]["scores"]["em"]) for r in records if r["id"] in baseline]
        cells.append(f"{sum(a > b for a, b in pairs)} / {sum(a < b for a, b in pairs)}")
    else:
        cells.append("")
    return "| " + " | ".join(cells) + " |"


def label_and_path(item: str) -> tuple[str, Path]:
    """--row LABEL=RESULTS.jsonl, where both may hold "=" (default:relevance=false=.../default_relevance=false...):
    split at the first "=" that a results file follows."""
    for i, char in enumerate(item):
        if char == "=" and Path(item[i + 1:]).is_file():
            return item[:i], Path(item[i + 1:])
    raise AssistantError(f"--row {item!r}: write LABEL=RESULTS.jsonl, naming a results file that exists")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--first", type=int, default=100)
    parser.add_argument("--exclude", type=Path, action="append", default=[])
    parser.add_argument("--row", action="append", required=True, help="LABEL=RESULTS.jsonl (repeatable)")
    parser.add_argument("--against", default="", help="label of the row to pair EM with")
    parser.add_argument("--pipeline", default="", help="label of the default pipeline's row: derive its ablations")
    parser.add_argument("--rerank", default="", help="label of rag:rerank's row, for the no-hop ablation")
    args = parser.parse_args()

    examples = load_dataset(args.dataset, limit=args.first)
    for path in args.exclude:
        reserved = QuestionSet(load_dataset(path))
        examples = [e for e in examples if e not in reserved]
    ids = [e.id for e in examples]
    rows: dict[str, dict[str, dict]] = {}
    for item in args.row:
        label, path = label_and_path(item)
        records = ResultsFile(path).records
        rows[label] = {i: records[i] for i in ids if i in records}
    baseline = rows.get(args.against)
    print(f"{len(ids)} questions\n")
    print("| strategy | n | EM | F1 | reader calls/q | prompt tok/q | mean s | p50 s | EM better / worse than "
          f"{args.against or '-'} |")
    print("| --- |" + " --- |" * 8)  # nine columns
    for label, records in rows.items():
        if records:
            print(row(label, list(records.values()), None if label == args.against else baseline, True))
    pipeline = rows.get(args.pipeline)
    if not pipeline:
        return
    derived = {"without ReFeed": without_refeed, "ReFeed keeps the refinement always": keep_rule("refined"),
               "ReFeed keeps by judge support": keep_rule("support")}
    for name, pick in derived.items():
        records = [scored(r, pick(r)) for r in pipeline.values()]
        print(row(f"{args.pipeline}, {name} (derived)", records, baseline, False))
    rerank = rows.get(args.rerank)
    if rerank:
        records = [r if r["resolved_by"].startswith("self-knowledge") else rerank[r["id"]]
                   for r in pipeline.values() if r["id"] in rerank]
        print(row(f"{args.pipeline}, no hop, no ReFeed (derived: gate + {args.rerank})", records, baseline, False))
    paths = Counter(r["resolved_by"] for r in pipeline.values())
    n = len(pipeline)
    print(f"\nPaths taken by {args.pipeline} ({n} questions): " +
          ", ".join(f"{name} {100 * count / n:.0f}%" for name, count in paths.most_common()))
    refined = sum(1 for r in pipeline.values() if r.get("refeed"))
    print(f"ReFeed refined (a reader call) on {refined} questions; on the rest its search brought nothing new.")


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
