"""Replay the grounding check on recorded answers: citations and labels without re-running the reader.

A proxy for `assistant eval` with the check (issue 30), cheap enough to run on a busy machine: each
recorded answer of a results file is grounded against its question's own paragraphs (HotpotQA's 10,
MuSiQue's 20: gold support plus distractors) rather than the passages the pipeline read from the
pooled index; --drop-support removes the question's supporting paragraphs first.
Prints citation precision, support recall, and share and EM by grounding label.

    python -m lab.grounding_replay RESULTS.jsonl DATASET [--drop-support]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from assistant.evaluation.datasets import load_dataset
from assistant.evaluation.support import citation_record
from assistant.evaluation.trust import trust, trust_table
from assistant.events import Passage
from assistant.grounding import ground


def replay(results: Path, dataset: Path, drop_support: bool) -> list[dict]:
    import json

    examples = {e.id: e for e in load_dataset(dataset)}
    records = []
    for line in results.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        example = examples.get(record["id"])
        if example is None:
            continue
        paragraphs = [p for p in example.paragraphs if not (drop_support and p.is_supporting)]
        passages = [Passage(id=str(i), text=p.text, title=p.title) for i, p in enumerate(paragraphs)]
        memory = record.get("resolved_by", "").startswith("self-knowledge")
        attribution = ground(record["prediction"], record["question"], passages, from_memory=memory)
        records.append({"scores": record["scores"], "grounding": attribution.grounding,
                        **citation_record(example, attribution.cited)})
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--drop-support", action="store_true")
    args = parser.parse_args()
    name = args.results.stem + (" (drop-support)" if args.drop_support else "")
    print(trust_table([trust(name, replay(args.results, args.dataset, args.drop_support))]))


if __name__ == "__main__":
    main()
