"""The default pipeline's page checks replayed on recorded answers: a pick decided by the dates its
options' pages give (assistant/checks/dated_choice.py) and a yes/no about two things' nationality decided by
their pages' openings (assistant/checks/nationality.py). Which answers they turn, and how many are right
before and after; no reader needed: both read only the passages the answer read, so the replay of
a run made before them is exact.

The answer the checks saw is the record's `dates.answer` or `nationality.answer` where the run made
the check, else its prediction (after the yes/no lean, which runs before them). With --out, the records are written again with the checks'
answers and their scores, for `lab/grounding_replay.py` to replay the citations and labels on.

    .venv/bin/python -m lab.page_checks_replay RESULTS.jsonl [RESULTS.jsonl ...] [--out NEW.jsonl] [-v]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.checks import dated_choice
from assistant.checks import nationality
from research.evaluation.metrics import score
from assistant.events.core import Passage


def seen_answer(record: dict) -> str:
    """The answer the checks saw: before any of them turned it (the yes/no lean's answer stands)."""
    for field in ("dates", "nationality"):
        if record.get(field):
            return record[field]["answer"]
    return record["prediction"]


def replay_record(record: dict) -> tuple[dict, str | None]:
    """The record with the checks' answer and scores, and which check decided it ("dates",
    "nationality"; None when neither does)."""
    answer = seen_answer(record)
    passages = [Passage(id=p["id"], text=p["text"], title=p["title"]) for p in record.get("read") or []]
    how = None
    dated = dated_choice.pick_to_decide(record["question"], answer, passages)
    if dated is not None:
        verdict, pick = dated
        answer, how = (verdict.options[verdict.decided] if verdict.decided != pick else answer), "dates"
    origin = nationality.yes_no_to_decide(record["question"], answer, passages)
    if origin is not None:
        answer, how = origin.answer, "nationality"
    if how is None:
        return record, None
    new = dict(record, prediction=answer)
    new["scores"] = score(answer, record.get("gold") or [], record.get("kind", "span"))
    return new, how


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, help="write the records again with the checks' answers (one input file)")
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
        em_before = 100 * sum(r["scores"]["em"] for r in records) / max(len(records), 1)
        em_after = 100 * sum(new["scores"]["em"] for _, new, _ in replayed) / max(len(records), 1)
        print(f"{path}: {len(records)} answers; EM {em_before:.1f} -> {em_after:.1f}")
        for check in ("dates", "nationality"):
            decided = [(old, new) for old, new, how in replayed if how == check]
            turned = sum(old["prediction"] != new["prediction"] for old, new in decided)
            print(f"  {check}: {len(decided)} decided ({turned} turned), right "
                  f"{sum(old['scores']['em'] for old, _ in decided):g} -> {sum(new['scores']['em'] for _, new in decided):g}")
            if args.v:
                for old, new in decided:
                    print(f"    {old['prediction'][:30]!r:32} -> {new['prediction'][:30]!r:32} "
                          f"em {old['scores']['em']:g}->{new['scores']['em']:g}  {old['question'][:70]}")
        if args.out:
            args.out.write_text("".join(json.dumps(new) + "\n" for _, new, _ in replayed), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
