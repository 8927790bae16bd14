"""Replay the grounding check on recorded answers: citations and labels without re-running the reader.

A proxy for `assistant eval` with the check (issue 30), cheap enough to run on a busy machine: each
recorded answer of a results file is grounded against the passages its run read (records written
since results carry a `read` field: an exact replay), else against its question's own paragraphs
(HotpotQA's 10, MuSiQue's 20: gold support plus distractors); --drop-support grounds against the
question's own paragraphs less its supporting ones (a proxy: a run of `eval --drop-support` read
its passages from the pooled index).
Prints citation precision, support recall, share and EM by grounding label, and the check's time per
answer; --encoder replays the check with its cross-encoder (the `encoder=true` option); --coverage
the share of the question's words the cited passages must hold (default: the default strategy's);
--untrained leaves out the training questions the grounding encoder learned from (for recorded answers
to training questions, e.g. lab/results/tune_*); --no-rarity counts the question's words once in the
coverage (the `rarity=false` ablation); --repeats also cites pages that add no word to the others
(the `repeats=true` ablation); --no-compare holds a comparison's pages to coverage and links like
any others (the `compare=false` ablation); --pieced labels a supported pick or chain's last hop
"pieced together", as the runner does (assistant/grounding/pieced.py; without it, the check alone).

    python -m lab.grounding_replay RESULTS.jsonl DATASET [--drop-support] [--encoder] [--untrained] [--coverage 0.4] [--names 0.75] [--no-rarity] [--repeats] [--no-compare] [--pieced]
"""
from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from index_builder.datasets import load_dataset
from research.evaluation.support import citation_record
from research.evaluation.trust import trust, trust_table
from assistant.events.core import Passage
from assistant.grounding.pieced import label_pieced
from assistant.grounding.verdict import ground


def replay(results: Path, dataset: Path, drop_support: bool, untrained: bool = False, pieced: bool = False,
           **changes) -> tuple[list[dict], float]:
    """(trust records, mean seconds of the check per answer); `changes`: GroundingRule fields that
    differ from the default strategy's rule (encoder, coverage, names, rarity, repeats, compare)."""
    import json
    import time

    from research.judge_training.grounding_encoder_train import encoder_trained_on

    rule = replace(shipped_rule(), **changes)

    file_key = "/".join(dataset.resolve().parts[-2:])  # as relevance_data names the training files

    examples = {e.id: e for e in load_dataset(dataset)}
    records, seconds = [], 0.0
    for line in results.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        example = examples.get(record["id"])
        if example is None or (untrained and encoder_trained_on(f"{file_key}#{example.id}")):
            continue
        if "read" in record and not drop_support:  # exactly what the run read (results since the read field)
            passages = [Passage(id=p["id"], text=p["text"], title=p["title"]) for p in record["read"]]
        else:
            paragraphs = [p for p in example.paragraphs if not (drop_support and p.is_supporting)]
            passages = [Passage(id=str(i), text=p.text, title=p.title) for i, p in enumerate(paragraphs)]
        memory = record.get("resolved_by", "").startswith("self-knowledge")
        started = time.perf_counter()
        attribution = ground(record["prediction"], record["question"], passages, rule, from_memory=memory)
        seconds += time.perf_counter() - started
        if pieced:
            attribution = label_pieced(attribution, record["question"], record["prediction"],
                                       record.get("resolved_by", ""))
        records.append({"scores": record["scores"], "grounding": attribution.grounding,
                        "answer_seconds": float(record.get("seconds") or 0.0),
                        **citation_record(example, attribution.cited)})
    return records, seconds / max(1, len(records))


def shipped_rule():
    from assistant.strategies import make_strategy

    return make_strategy("default").grounding


def rule_changes(args) -> dict:
    """The rule's fields the command line gives, in this order (a flag only when it is set)."""
    given = {"encoder": args.encoder or None, "coverage": args.coverage, "names": args.names,
             "rarity": False if args.no_rarity else None, "repeats": args.repeats or None,
             "compare": False if args.no_compare else None}
    return {k: v for k, v in given.items() if v is not None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--drop-support", action="store_true")
    parser.add_argument("--encoder", action="store_true", help="with the cross-encoder (encoder=true)")
    parser.add_argument("--untrained", action="store_true", help="leave out questions the encoder learned from")
    parser.add_argument("--coverage", type=float, default=None,
                        help="share of the question's words the cited passages must hold (0: off; "
                             "default: the default strategy's)")
    parser.add_argument("--names", type=float, default=None,
                        help="share of the question's names and numbers the cited passages must hold, "
                             "and all the answer's (0: off; default: the default strategy's)")
    parser.add_argument("--no-rarity", action="store_true",
                        help="coverage counts each of the question's words once (the rarity=false ablation)")
    parser.add_argument("--repeats", action="store_true",
                        help="also cite pages that add no word to the others (the repeats=true ablation)")
    parser.add_argument("--no-compare", action="store_true",
                        help="hold a comparison's pages to coverage and links (the compare=false ablation)")
    parser.add_argument("--pieced", action="store_true", help="label picks and chains 'pieced together', as the runner does")
    args = parser.parse_args()
    changes = rule_changes(args)
    name = args.results.stem + (" (drop-support)" if args.drop_support else "") + "".join(
        f" ({k}={str(v).lower() if isinstance(v, bool) else f'{v:g}'})" for k, v in changes.items()) + (
        " (pieced)" if args.pieced else "")
    records, seconds = replay(args.results, args.dataset, args.drop_support, args.untrained, args.pieced,
                              **changes)
    print(trust_table([trust(name, records)]))
    answering = sum(r["answer_seconds"] for r in records) / max(1, len(records))
    share = f", {100 * seconds / answering:.1f}% of the recorded answer time ({answering:.1f} s)" if answering else ""
    print(f"grounding check: {seconds * 1000:.0f} ms per answer ({len(records)} answers){share}")


if __name__ == "__main__":
    main()
