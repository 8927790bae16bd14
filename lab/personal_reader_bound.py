"""How often the reader is right when handed only the passage that holds the answer (issue 51): the
bound that retrieval and checks cannot raise "right" above, on the personal set.

For each answerable question of a split (folder questions left out: they are answered from the
index, not by the reader), each part's holding passage is the first passage of its holding file that
writes one of the part's answers; the reader answers with the product's answer prompt from those
passages alone (one call), scored as lab/personal_eval.py scores "right (every part)".

    ASSISTANT_DATA_DIR=/tmp/personal-eval-data python -m lab.personal_reader_bound --reader GGUF [--split tune]
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from assistant.answering.prompts import from_passages
from research.evaluation.personal_set import load_personal
from assistant.events.core import Passage
from lab.documents_grounding_replay import QUESTIONS
from lab.personal_scoring import score

READER_KINDS = ("one_fact", "two_facts", "two_files")


def holding_passages(table, question) -> list[Passage] | None:
    """One passage per part: the first of its holding file that writes one of its answers."""
    found = []
    per_part = len(question.holding_files) == len(question.answers)
    for n, answers in enumerate(question.answers):
        files = question.holding_files[n] if per_part else question.holding_files[0]
        rows = [r for f in files for r in table.search().where(f"path = '{f}'").limit(500)
                .select(["id", "text", "title", "path"]).to_list()]
        hit = next((r for r in rows if any(a.lower() in r["text"].lower() for a in answers)), None)
        if hit is None:
            return None
        if all(p.id != hit["id"] for p in found):
            found.append(Passage(id=hit["id"], text=hit["text"], title=hit["title"], path=hit["path"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--split", choices=("tune", "report"), default="tune")
    parser.add_argument("--index", type=Path, default=Path("/tmp/personal-eval-data/index"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import lancedb

    from models.reader.llama_reader import Reader

    reader = Reader(args.reader, n_ctx=4096, n_threads=args.threads)
    table = lancedb.connect(str(args.index)).open_table("passages")
    questions = [q for q in load_personal(QUESTIONS) if q.split == args.split and q.kind in READER_KINDS]
    right, seen, missing = Counter(), Counter(), []
    for q in questions:
        passages = holding_passages(table, q)
        if passages is None:
            missing.append(q.id)
            continue
        answer = reader.generate(from_passages(q.question, passages), max_tokens=64).text.strip()
        scored = score(q, {"prediction": answer, "grounding": "supported"}, "bound")
        seen[q.kind] += 1
        right[q.kind] += scored.right
        print(f"{q.id:9} {'right' if scored.right else 'wrong'} {answer[:80]!r}", flush=True)
    total = sum(seen.values())
    print(f"\n{args.split} half, the reader given only the holding passages: right {sum(right.values())}/{total} "
          f"({sum(right.values()) / max(1, total):.0%}); " + ", ".join(f"{k} {right[k]}/{n}" for k, n in seen.items())
          + (f"; no holding passage found for {', '.join(missing)}" if missing else ""))


if __name__ == "__main__":
    main()
