"""Strategies side by side on the personal-documents set (issue 51), with the product's harness.

    ASSISTANT_DATA_DIR=DIR PYTHONPATH=. .venv/bin/python -m lab.personal_eval --folder FOLDER \\
        --split tune [--strategies default,rag] [--reader QWEN.gguf] [--ids one-01,none-03] [--out DIR]
    .venv/bin/python -m lab.personal_eval --replay DIR [--split tune]     # the table again, no model

The folder (lab/personal_docs/build_folder.py) must be indexed in the data dir's index as the
collection "personal" (`--index` does it first: `assistant index add FOLDER --collection personal`).
Questions alternate between the strategies (question 1 with each, then question 2...) and the
kinds take turns, so a run stopped early still compares them on the same questions of every kind; each record is written as it finishes
(harness.run_strategy's resumable JSONL, one file per strategy), so a rerun resumes. A question
whose holding file differs from lab/personal_docs/manifest.json is flagged and left out of the
table (drift.json beside the records). The report split is for the one reported run only.
`--split dev` runs the dev questions (lab/personal_docs/dev_questions.jsonl, the default questions
file for that split) over the dev folder (build_folder.py DEST --set dev), checked against
lab/personal_docs/dev_manifest.json.
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from research.evaluation.personal_set import SPLITS, load_personal
from lab.personal_docs.manifest import DEV_MANIFEST, MANIFEST, drift_line, drifted, read_manifest
from lab.personal_scoring import rows, score, table

QUESTIONS = Path(__file__).parent / "personal_docs" / "questions.jsonl"
DEV_QUESTIONS = Path(__file__).parent / "personal_docs" / "dev_questions.jsonl"
COLLECTION = "personal"


def by_turns(questions: list) -> list:
    """The questions with the kinds taking turns (a one-fact question, a two-facts one, ...), each
    kind in file order: a run stopped early has covered every kind alike."""
    queues = {}
    for question in questions:
        queues.setdefault(question.kind, []).append(question)
    turns = []
    while any(queues.values()):
        for queue in queues.values():
            if queue:
                turns.append(queue.pop(0))
    return turns


def index_folder(settings, folder: Path, collection: str = COLLECTION) -> str:
    """`assistant index add FOLDER --collection NAME` into settings' index; the summary line."""
    from assistant import service

    summary = service.add_source(settings.with_overrides(collection=None), folder, kind="document",
                                 collection=collection)
    return summary.line()


def run(args) -> Path:
    from research.evaluation.harness import RunPlan, split_specs
    from models import registry
    from models.config import load_settings

    specs = split_specs(args.strategies)
    questions = load_personal(args.questions, args.split)
    if args.ids:
        wanted = set(args.ids.split(","))
        questions = [q for q in questions if q.id in wanted]
    questions = by_turns(questions)
    questions = questions[: args.limit] if args.limit else questions
    settings = load_settings(reader=args.reader)
    if args.index:
        print(index_folder(settings, args.folder), flush=True)
    settings = settings.with_overrides(collection=COLLECTION)
    reader_name = registry.reader_path(settings).stem
    out = args.out or Path("lab/results/personal") / f"{args.split}-{reader_name}-{datetime.date.today()}"
    out.mkdir(parents=True, exist_ok=True)
    manifest = DEV_MANIFEST if args.split == "dev" else MANIFEST  # the dev folder has its own
    drift = drifted(args.folder, read_manifest(manifest))
    (out / "drift.json").write_text(json.dumps(drift, indent=1) + "\n", encoding="utf-8")
    if drift:
        print(drift_line(drift, manifest), flush=True)
    plan = RunPlan(dataset=args.questions, out_dir=out, settings=settings,
                   corpus=f"{settings.index_path} (collection {COLLECTION}, folder {args.folder.resolve()})",
                   reader_name=reader_name)
    run_questions(questions, specs, plan)
    return out


def run_questions(questions: list, specs: list[str], plan) -> None:
    """Each question with every strategy in turn (question 1 with each, then question 2 ...), each
    record written to plan.out_dir as it finishes (a rerun resumes); strategies.json there keeps
    the table's order. One context per strategy for the whole run (models are shared anyway)."""
    from research.evaluation.harness import run_strategy

    (plan.out_dir / "strategies.json").write_text(json.dumps(specs) + "\n", encoding="utf-8")
    contexts: dict = {}

    def context_for(spec):
        from assistant.runner import build_context

        def context(s, strategy):
            if spec not in contexts:
                contexts[spec] = build_context(s, strategy)
            return contexts[spec]
        return context

    for number, question in enumerate(questions, 1):
        for spec in specs:
            def said(_spec, _done, _total, record, number=number):
                print(f"[{number}/{len(questions)}] {question.id} {_spec}: {record['seconds']}s "
                      f"calls={record.get('counts', {}).get('reader_calls', '?')} "
                      f"label={record.get('grounding', '') or '-'} answer={record['prediction'][:80]!r}", flush=True)
            run_strategy(spec, [question.example()], plan, said, context_factory=context_for(spec))


def records_by_strategy(out: Path) -> list[tuple[str, list[dict]]]:
    """(strategy, its records) for each strategy's JSONL in `out`, in the run's order (strategies.json)."""
    from research.evaluation.harness import slug
    from research.evaluation.results import ResultsFile

    names = json.loads((out / "strategies.json").read_text()) if (out / "strategies.json").exists() else None
    files = sorted(p for p in out.glob("*.jsonl"))
    if names:
        files = sorted(files, key=lambda p: next((i for i, n in enumerate(names) if p.name.startswith(slug(n) + "__")), 99))
    return [(path.name.split("__")[0], list(ResultsFile(path).records.values())) for path in files]


def report(out: Path, questions_file: Path, split: str | None, listing: bool = False) -> str:
    """The table from the records in `out` (every strategy's JSONL there), drifted questions left out."""
    questions = {q.id: q for q in load_personal(questions_file, split)}
    drift_file = out / "drift.json"
    drift = json.loads(drift_file.read_text()) if drift_file.exists() else {}
    scored, strategies, flagged = [], [], set()
    for strategy, records in records_by_strategy(out):
        strategies.append(strategy)
        for record in records:
            question = questions.get(record["id"])
            if question is None:
                continue
            if question.all_holding() & set(drift):
                flagged.add(question.id)
                continue
            scored.append(score(question, record, strategy))
    # only questions every strategy answered: the comparison is on the same questions
    done = [{s.id for s in scored if s.strategy == name} for name in strategies]
    shared = set.intersection(*done) if done else set()
    scored = [s for s in scored if s.id in shared]
    lines = [f"{len(shared)} questions answered by every strategy ({', '.join(strategies)}), records in {out}", "",
             table(rows(scored, strategies))]
    if flagged:
        lines += ["", f"flagged (a holding file drifted from the manifest, left out): {', '.join(sorted(flagged))}"]
    if listing:
        lines += ["", "| id | strategy | right | parts | label | supported | holding cited | s | calls | answer |",
                  "|" + " --- |" * 10]
        for s in sorted(scored, key=lambda s: (s.id, s.strategy)):
            answer = " ".join(s.answer.split())[:90].replace("|", "/")
            lines.append(f"| {s.id} | {s.strategy} | {int(s.right)} | {''.join(str(int(p)) for p in s.parts) or '-'} "
                         f"| {s.label or '-'} | {int(s.supported)} | {int(s.right_supported_cited)} | {s.seconds:.0f} "
                         f"| {s.reader_calls} | {answer} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, help="the personal-documents folder (build_folder.py DEST)")
    parser.add_argument("--questions", type=Path, help="questions file (default: questions.jsonl, "
                                                     "dev_questions.jsonl for --split dev)")
    parser.add_argument("--split", choices=SPLITS, default="tune")
    parser.add_argument("--strategies", default="default,rag")
    parser.add_argument("--reader", type=Path, help="a .gguf reader (default: the bundled one)")
    parser.add_argument("--ids", help="only these question ids (comma-separated)")
    parser.add_argument("--limit", type=int, help="only the first N questions of the split")
    parser.add_argument("--out", type=Path, help="records folder (default lab/results/personal/SPLIT-READER-DATE)")
    parser.add_argument("--index", action="store_true", help="index the folder into the collection first")
    parser.add_argument("--replay", type=Path, help="recompute the table from the records in this folder")
    parser.add_argument("--list", action="store_true", help="also list every question's scores")
    args = parser.parse_args(argv)
    args.questions = args.questions or (DEV_QUESTIONS if args.split == "dev" else QUESTIONS)
    if args.replay:
        print(report(args.replay, args.questions, args.split, args.list))
        return 0
    if args.folder is None or not args.folder.is_dir():
        parser.error("--folder FOLDER (the built personal-documents folder) is needed to run")
    out = run(args)
    print(report(out, args.questions, args.split, args.list))
    return 0


if __name__ == "__main__":
    sys.exit(main())
