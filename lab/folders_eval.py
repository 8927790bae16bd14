"""Strategies side by side on the many-folders benchmark (issue 62), each collection in its own index.

    PYTHONPATH=. .venv/bin/python -m lab.folders_eval --benchmark many-folders --collections choose \\
        --folders DEST --data-root DIR [--strategies default,rag] [--reader QWEN.gguf] [--ids ...] [--limit N]
    PYTHONPATH=. .venv/bin/python -m lab.folders_eval --replay OUT [--collections report]   # no model

DEST is what lab.many_folders.materialise made (DEST/NAME per collection). Each collection is
indexed (first run, or `--index`) into DIR/NAME/index as the collection NAME, and its questions
(lab/many_folders/questions.jsonl) are run question by question with every strategy
(lab/personal_eval.run_questions: resumable records, one JSONL per strategy, under OUT/NAME).
The table: per collection and per kind, right, supported with a holding file cited, labelled
"not in your documents", wrong but supported, unanswerable honest, holding passage read, median
time and reader calls (lab/many_folders/scoring.py). A question whose holding file drifted from
lab/many_folders/manifest.json is flagged and left out. `--collections report` is for the one
reported run: those questions are read only to score them (lab/many_folders/README.md).
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from lab.many_folders.materialise import MANIFEST
from lab.many_folders.questions_file import QUESTIONS, load_questions
from lab.many_folders.scoring import score_folder, table
from lab.personal_docs.manifest import drift_line, drifted, read_manifest
from lab.personal_eval import by_turns, index_folder, records_by_strategy, run_questions

BENCHMARKS = {"many-folders": QUESTIONS}


def run(args) -> Path:
    from models import registry
    from models.config import load_settings
    from research.evaluation.harness import RunPlan, split_specs

    specs = split_specs(args.strategies)
    questions = load_questions(args.questions, args.collections)
    if args.ids:
        wanted = set(args.ids.split(","))
        questions = [q for q in questions if q.id in wanted]
    settings = load_settings(reader=args.reader)
    reader_name = registry.reader_path(settings).stem
    out = args.out or Path("lab/results/many_folders") / f"{args.collections}-{reader_name}-{datetime.date.today()}"
    manifest = read_manifest(MANIFEST)
    for name in sorted({q.collection for q in questions}, key=[q.collection for q in questions].index):
        chosen = by_turns([q for q in questions if q.collection == name])
        chosen = chosen[: args.limit] if args.limit else chosen
        folder = args.folders / name
        if not folder.is_dir():
            raise SystemExit(f"error: {folder} is missing; run lab.many_folders.materialise {args.folders} first")
        index = args.data_root / name / "index"
        collection_settings = settings.with_overrides(index=index, collection=None)
        if args.index or not index.exists():
            print(f"{name}: {index_folder(collection_settings, folder, name)}", flush=True)
        collection_settings = collection_settings.with_overrides(collection=name)
        (out / name).mkdir(parents=True, exist_ok=True)
        drift = drifted(args.folders, {f: row for f, row in manifest.items() if f.split("/")[0] == name})
        (out / name / "drift.json").write_text(json.dumps(drift, indent=1) + "\n", encoding="utf-8")
        if drift:
            print(drift_line(drift, MANIFEST), flush=True)
        plan = RunPlan(dataset=args.questions, out_dir=out / name, settings=collection_settings,
                       corpus=f"{index} (collection {name}, folder {folder.resolve()})", reader_name=reader_name)
        run_questions(chosen, specs, plan)
    return out


def report(out: Path, questions_file: Path, which: str, by_kind: bool = True) -> str:
    """The table from the records under out/NAME/ (every collection run there), drifted and
    unfinished questions left out: each strategy is scored on the same questions."""
    questions = {q.id: q for q in load_questions(questions_file, which)}
    scored, strategies, flagged = [], [], set()
    for folder in sorted(p for p in out.iterdir() if p.is_dir()):
        drift_file = folder / "drift.json"
        drift = {f.split("/", 1)[-1] for f in json.loads(drift_file.read_text())} if drift_file.exists() else set()
        for strategy, records in records_by_strategy(folder):
            strategies += [strategy] if strategy not in strategies else []
            for record in records:
                question = questions.get(record["id"])
                if question is None:
                    continue
                if question.all_holding() & drift:
                    flagged.add(question.id)
                    continue
                scored.append(score_folder(question, record, strategy))
    done = [{s.scored.id for s in scored if s.scored.strategy == name} for name in strategies]
    shared = set.intersection(*done) if done else set()
    scored = [s for s in scored if s.scored.id in shared]
    lines = [f"{len(shared)} questions answered by every strategy ({', '.join(strategies)}), records in {out}", "",
             table(scored, strategies, by_kind)]
    if flagged:
        lines += ["", f"flagged (a holding file drifted from the manifest, left out): {', '.join(sorted(flagged))}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", choices=tuple(BENCHMARKS), default="many-folders")
    parser.add_argument("--collections", default="choose", help="choose, report, all, or names with commas")
    parser.add_argument("--folders", type=Path, help="the materialised collections (materialise.py DEST)")
    parser.add_argument("--data-root", type=Path, help="where each collection's index goes (DIR/NAME/index)")
    parser.add_argument("--questions", type=Path, help="questions file (default: the benchmark's)")
    parser.add_argument("--strategies", default="default,rag")
    parser.add_argument("--reader", type=Path, help="a .gguf reader (default: the bundled one)")
    parser.add_argument("--ids", help="only these question ids (comma-separated)")
    parser.add_argument("--limit", type=int, help="only the first N questions of each collection (kinds in turn)")
    parser.add_argument("--out", type=Path, help="records folder (default lab/results/many_folders/WHICH-READER-DATE)")
    parser.add_argument("--index", action="store_true", help="index each collection again first")
    parser.add_argument("--replay", type=Path, help="recompute the table from the records in this folder")
    parser.add_argument("--no-kinds", action="store_true", help="one row per collection, no row per kind")
    args = parser.parse_args(argv)
    args.questions = args.questions or BENCHMARKS[args.benchmark]
    if args.replay:
        print(report(args.replay, args.questions, args.collections, not args.no_kinds))
        return 0
    if args.folders is None or args.data_root is None:
        parser.error("--folders DEST and --data-root DIR are needed to run")
    out = run(args)
    print(report(out, args.questions, args.collections, not args.no_kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
