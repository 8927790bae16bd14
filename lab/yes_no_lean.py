"""The reader's lean to "yes": its log-odds of yes over no on recorded yes/no questions, and how many
of its bare yes/no answers each lean would get right (needs the reader; training files only).

For each record whose gold is yes or no: the log-odds are those of the record's own check where the
run made one (`yes_no` in the record: exact), else scored now, with the product's code
(`assistant.checks.yes_no.passages_log_odds`) on the answer prompt over the passages the answer read (`read`).
The answer the reader wrote is the record's `yes_no.answer` where the check turned it, else its
prediction; only bare yes/no answers are weighed, as in the product.

    .venv/bin/python -m lab.yes_no_lean RESULTS.jsonl [RESULTS.jsonl ...] --reader QWEN.gguf \
        [--leans 0,3,3.4,4] [--out MARGINS.json]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.events.core import Passage
from assistant.checks.yes_no import bare_yes_no, passages_log_odds
from models.errors import ModelError


def yes_no_rows(path: Path) -> list[dict]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        gold = [g.lower() for g in record.get("gold") or []]
        if gold[:1] in (["yes"], ["no"]):
            rows.append(record)
    return rows


def written_answer(record: dict) -> str:
    """What the reader wrote, before any yes/no check turned it."""
    check = record.get("yes_no")
    return check["answer"] if check else record["prediction"]


def margin(reader, record: dict, max_answer_tokens: int = 96) -> float:
    if record.get("yes_no"):
        return float(record["yes_no"]["log_odds"])
    passages = [Passage(id=p["id"], text=p["text"], title=p["title"]) for p in record.get("read") or []]
    return passages_log_odds(reader, record["question"], passages, max_answer_tokens)


def auc(scored: list[tuple[float, bool]]) -> float | None:
    """The share of (yes gold, no gold) pairs whose log-odds are in that order (ties half)."""
    pos = [m for m, yes in scored if yes]
    neg = [m for m, yes in scored if not yes]
    if not pos or not neg:
        return None
    return sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / (len(pos) * len(neg))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--leans", default="0,2.5,3,3.25,3.4,3.5,4")
    parser.add_argument("--out", type=Path, help="write each question's log-odds here (JSON)")
    args = parser.parse_args(argv)
    try:
        leans = [float(x) for x in args.leans.split(",")]
    except ValueError:
        parser.error(f"--leans wants numbers separated by commas, not {args.leans!r}")
    for path in args.results:
        try:
            yes_no_rows(path)
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"{path} is no readable results file of `assistant eval` ({type(exc).__name__}: {exc})")
    from models.reader.llama_reader import Reader

    reader = None
    kept = []
    for path in args.results:
        rows = yes_no_rows(path)
        if reader is None and any(not r.get("yes_no") for r in rows):
            try:
                reader = Reader(args.reader, n_threads=2)
            except ModelError as exc:
                parser.error(str(exc))
        scored = [(margin(reader, r), r["gold"][0].lower() == "yes", bare_yes_no(written_answer(r))) for r in rows]
        kept += [{"file": path.name, "id": r["id"], "gold": r["gold"][0].lower(), "written": w, "log_odds": round(m, 3)}
                 for r, (m, _, w) in zip(rows, scored)]
        weighed = [(m, yes, w) for m, yes, w in scored if w]
        area = auc([(m, yes) for m, yes, _ in scored])
        print(f"{path}: {len(rows)} yes/no questions, {len(weighed)} answered yes or no; "
              f"AUC of the log-odds {area if area is None else round(area, 3)}")
        print("  as written: " + f"{sum((w == 'Yes') == yes for _, yes, w in weighed)} right")
        for lean in leans:
            print(f"  lean {lean:g}: {sum((m > lean) == yes for m, yes, _ in weighed)} right")
    if args.out:
        args.out.write_text(json.dumps(kept, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
