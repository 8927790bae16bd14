"""Choosing the re-read's threshold (issue 51): the recorded answers of a personal-set run labelled
again by the word check alone, then with the reader reading each answer's lines again
(assistant/grounding/documents_check.py) at each threshold, scored as lab/personal_eval.py scores.
The reader's verdicts are computed once and reused across thresholds.

Run it on the tune half to choose; the report half is answered once, with the shipped threshold.

    ASSISTANT_DATA_DIR=/tmp/personal-eval-data python -m lab.documents_check_replay RUN_DIR --reader GGUF \
        [--thresholds 0.5,0.6] [--list] [--index DIR] [--questions lab/personal_docs/dev_questions.jsonl]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from research.evaluation.personal_set import load_personal
from assistant.grounding.documents import files_named, subject_of
from assistant.grounding.documents_check import ReaderCheck
from models.downloads.catalog import reread_threshold_of
from lab.documents_grounding_replay import QUESTIONS, file_namer, regrounded, word_counter
from lab.personal_scoring import rows, score, table


class RememberingReader:
    """The reader's option scores, each prompt scored once."""

    def __init__(self, reader):
        self.reader = reader
        self.seen: dict[str, list] = {}
        self.seconds = 0.0

    def score_options(self, messages, options):
        key = messages[-1]["content"] + "\x00" + "\x00".join(options)
        if key not in self.seen:
            started = time.perf_counter()
            self.seen[key] = self.reader.score_options(messages, options)
            self.seconds += time.perf_counter() - started
        return self.seen[key]

    def generate(self, messages, **kwargs):
        key = "gen\x00" + messages[-1]["content"]
        if key not in self.seen:
            started = time.perf_counter()
            self.seen[key] = self.reader.generate(messages, **kwargs)
            self.seconds += time.perf_counter() - started
        return self.seen[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--index", type=Path, default=Path("/tmp/personal-eval-data/index"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--questions", type=Path, default=QUESTIONS,
                        help="the run's question file (lab/personal_docs/dev_questions.jsonl for the dev split)")
    parser.add_argument("--thresholds", default="", help="comma-separated; default: the catalog's for the reader")
    parser.add_argument("--list", action="store_true", help="the answers whose label the re-read changes")
    parser.add_argument("--named", action="store_true", help="with the rule for questions naming a file of the folder")
    args = parser.parse_args()
    from models.reader.llama_reader import Reader

    reader = RememberingReader(Reader(args.reader, n_ctx=2048, n_threads=args.threads))
    questions = {q.id: q for q in load_personal(args.questions)}
    count = word_counter(args.index)
    cuts = [float(t) for t in args.thresholds.split(",") if t] or [reread_threshold_of(args.reader) or 0.5]
    records = [json.loads(line) for f in sorted(args.run.glob("default__*.jsonl")) for line in f.read_text().splitlines()]
    subjects = {r["id"]: subject_of(r["question"], count) for r in records}
    names = file_namer(args.index)
    named = {r["id"]: files_named(r["question"], names) if args.named else frozenset() for r in records}
    words = [score(questions[r["id"]], regrounded(r, subjects[r["id"]], named=named[r["id"]]), "word check")
             for r in records]
    scored, changed, checks_by = {"word check": words}, {}, {}
    for cut in sorted(cuts, reverse=True):  # the highest first: every claim's passages are read
        name = f"+ re-read >= {cut:g}"
        checks = checks_by[name] = {r["id"]: ReaderCheck(reader, cut) for r in records}
        scored[name] = [score(questions[r["id"]], regrounded(r, subjects[r["id"]], checks[r["id"]].states,
                                                             named[r["id"]]), name) for r in records]
        changed[name] = [(a, b, checks[a.id].verdicts) for a, b in zip(words, scored[name]) if a.label != b.label]
    print(f"## {args.run} ({len(records)} records; {len(reader.seen)} re-reads, "
          f"{reader.seconds / max(1, len(reader.seen)):.1f} s each)\n")
    print(table([row for name, s in scored.items() for row in rows(s, [name]) if row.kind == "all"]))
    if args.list:
        for name, pairs in changed.items():
            print(f"\n{name}:")
            for before, after, verdicts in pairs:
                print(f"- {before.id}: {before.label} -> {after.label} (right: {before.right}) [{_said(verdicts)}]")
            left = [r for r in scored[name] if r.wrong_supported]
            print("  still wrong but supported: " + "; ".join(
                f"{r.id} {r.answer[:60]!r} [{_said(checks_by[name][r.id].verdicts)}]" for r in left))


def _said(verdicts) -> str:
    return ", ".join(f"{v.claim!r} {v.p_yes:.2f} read {v.read!r}" for v in verdicts)


if __name__ == "__main__":
    main()
