"""The re-read on questions the reader wrote from other manuals (lab/documents_claims.py): how often
it confirms the answer on the passage that gives it, and each kind of mistake beside it (another fact
of the same passage, another manual writing or given the answer, the passage without the answer's
sentence). Data generated from real documents, none of the personal set's folder.

    python -m lab.documents_claims_check --claims lab/results/documents_claims/claims.jsonl --reader GGUF [--groups 60]
"""
from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

from assistant.events.core import Passage
from assistant.grounding.documents_check import ReaderCheck
from models.downloads.catalog import reread_threshold_of
from lab.documents_claim_pairs import build_groups, claims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=Path, required=True)
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--groups", type=int, default=60)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write every pair's P(yes) here (JSONL)")
    args = parser.parse_args()
    from models.reader.llama_reader import Reader

    reader = Reader(args.reader, n_ctx=2048, n_threads=args.threads)
    every = claims([json.loads(line) for line in args.claims.read_text(encoding="utf-8").splitlines() if line])
    groups = build_groups(every, every, args.seed)
    chosen = random.Random(args.seed).sample(groups, min(args.groups, len(groups)))
    threshold = reread_threshold_of(args.reader) or 0.5
    by_kind: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    out = args.out.open("w", encoding="utf-8") if args.out else None
    for group in chosen:
        for pair in group:
            passage = Passage(id="", text=pair.passage, title=pair.title, path=pair.title)
            v = ReaderCheck(reader, threshold).verdict(pair.question, pair.claim, [passage])  # the product's rule
            by_kind[pair.kind].append((v.p_yes, v.confirmed))
            if out:
                out.write(json.dumps({"kind": pair.kind, "question": pair.question, "claim": pair.claim,
                                      "title": pair.title, "p_yes": v.p_yes, "read": v.read}) + "\n")
    print(f"{len(chosen)} groups; yes at P(yes) >= {threshold} (the catalog's, or 0.5); confirmed: a yes whose "
          "lines, read without the claim, give the claim back:\n")
    print("| pair | n | yes | confirmed | median P(yes) |\n| --- | --- | --- | --- | --- |")
    for kind, values in sorted(by_kind.items()):
        values.sort()
        yes, confirmed = sum(p >= threshold for p, _ in values), sum(c for _, c in values)
        print(f"| {kind} | {len(values)} | {yes}/{len(values)} ({yes / len(values):.0%}) | "
              f"{confirmed}/{len(values)} ({confirmed / len(values):.0%}) | {values[len(values) // 2][0]:.2f} |")


if __name__ == "__main__":
    main()
