"""The dated-choice step (assistant/dated_choice.py) replayed on recorded answers: which picks the
dates on the options' pages turn, and how many are right before and after (no reader needed: the
step reads only the passages the answer read, so the replay of a run made before it is exact).

The answer as the reader wrote it is the record's `dates.answer` where the run made the step, else
its prediction. With --out, the records are written again with the step's answers and their scores,
for `lab/grounding_replay.py` to replay the citations and labels on.

    .venv/bin/python -m lab.dated_choice_replay RESULTS.jsonl [RESULTS.jsonl ...] [--out NEW.jsonl] [-v]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.dated_choice import to_decide
from assistant.evaluation.metrics import score
from assistant.events import Passage


def replay_record(record: dict) -> tuple[dict, str | None]:
    """The record with the step's answer and scores, and what the step did ("turned", "kept", or
    None when it does not decide)."""
    written = (record.get("dates") or {}).get("answer") or record["prediction"]
    passages = [Passage(id=p["id"], text=p["text"], title=p["title"]) for p in record.get("read") or []]
    decided = to_decide(record["question"], written, passages)
    if decided is None:
        return record, None
    verdict, pick = decided
    answer = verdict.options[verdict.decided]
    new = dict(record, prediction=answer if verdict.decided != pick else written)
    new["scores"] = score(new["prediction"], record.get("gold") or [], record.get("kind", "span"))
    return new, "kept" if verdict.decided == pick else "turned"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, help="write the records again with the step's answers (one input file)")
    parser.add_argument("-v", action="store_true", help="print each decided question")
    args = parser.parse_args(argv)
    if args.out and len(args.results) != 1:
        parser.error("--out takes one results file")
    for path in args.results:
        try:
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            replayed = [(r, *replay_record(r)) for r in records]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"{path} is no readable results file of `assistant eval` ({type(exc).__name__}: {exc})")
        decided = [(old, new, how) for old, new, how in replayed if how]
        before = sum(old["scores"]["em"] for old, _, _ in decided)
        after = sum(new["scores"]["em"] for _, new, _ in decided)
        em_before = 100 * sum(r["scores"]["em"] for r in records) / max(len(records), 1)
        em_after = 100 * sum(new["scores"]["em"] for _, new, _ in replayed) / max(len(records), 1)
        print(f"{path}: {len(records)} answers, {len(decided)} picks decided by dates "
              f"({sum(how == 'turned' for *_, how in decided)} turned): right {before:g} -> {after:g}; "
              f"EM {em_before:.1f} -> {em_after:.1f}")
        if args.v:
            for old, new, how in decided:
                print(f"  {how:6} {old['prediction'][:30]!r:32} -> {new['prediction'][:30]!r:32} "
                      f"em {old['scores']['em']:g}->{new['scores']['em']:g}  {old['question'][:70]}")
        if args.out:
            args.out.write_text("".join(json.dumps(new) + "\n" for _, new, _ in replayed), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
