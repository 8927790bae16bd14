"""Which passages should the default pipeline's multi-hop answer read? Replays each question that
took the hop in a results file and re-answers it from other read sets, with the same reader.

    .venv/bin/python lab/hop_read_sets.py RESULTS.jsonl --reader QWEN.gguf [--verify 2]

The searches, the selector and the reader (temperature 0) are deterministic, so the read set of
the runs it replays ("current": they were made with default:hop_read=first,hop_facts=true, the
default until this was measured) is the recorded multi-hop draft; `--verify N` re-answers N
questions from it to check that. Read sets (with the sub-question / sub-answer pairs as facts unless said):
- current: the first hop's top 3 + each sub-question's new top 2 (Replay.first_and_parts);
- first-all: every passage the first hop kept (up to max_passages) + the same sub-question ones;
- union-5: one pool of everything found, ranked by the selector against the original question
  (pipeline_misses.Replay.union, which runs rerank.judge_union); its top 5;
- union-kept: the same pool, as many as the first hop's keep rule takes (threshold, 2..5);
- union-10: that pool's top 10;
- wide-10: the question's own search, its top k = 10, unjudged (what rag@10 reads);
- union-5+wide: the pool's top 5, then wide-10's passages not among them, up to 10 in all;
- union-3+parts, union-5+parts: the pool's top 3 (5), then each sub-question's best passage (the
  selector's top for that sub-question's own search) not among them: a read set per hop, so a
  chain's later hops are read even when they rank low against the question;
- "<read set> no-facts": that read set without the pairs (do wrong sub-answers mislead the reader?).
Scores are of the multi-hop answer before ReFeed. Meant for training questions (a tuning run):
the corpus is the one the results' config names.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from research.evaluation import metrics  # noqa: E402
from assistant.answering.hops import add_new  # noqa: E402
from models.errors import AssistantError  # noqa: E402

from lab.pipeline_misses import Replay, hop_read_of, sub_searches  # noqa: E402

READ_SETS = ("current", "first-all", "union-5", "union-kept", "union-10", "wide-10", "union-5+wide",
             "union-3+parts", "union-5+parts")
NO_FACTS = " no-facts"
VARIANTS = (*READ_SETS, *(name + NO_FACTS for name in READ_SETS))


def read_sets(replay: Replay, question: str, record: dict) -> dict[str, list]:
    union = replay.union(question, record)  # rerank.judge_union's ranking: .pool best first, .kept its keep rule
    wide = replay.retriever.search(question, replay.settings.k)
    parts = [p for query in sub_searches(record) for p in replay.ranked(query).kept[:1]]
    return {"current": replay.first_and_parts(question, record),
            "first-all": replay.first_and_parts(question, record, first=None),
            "union-5": union.pool[:5], "union-kept": union.kept, "union-10": union.pool[:10], "wide-10": wide,
            "union-5+wide": add_new(union.pool[:5], wide, limit=5),
            "union-3+parts": add_new(union.pool[:3], parts), "union-5+parts": add_new(union.pool[:5], parts)}


def fitted_prompt(reader, settings, question: str, passages, pairs) -> list[dict]:
    """The multi-hop answer's prompt as generate_answer fits it to the reader's context."""
    from assistant.answering import prompts
    from assistant.answering.prompt_fit import fit_passages

    return fit_passages(reader, lambda ps: prompts.from_passages(question, ps, facts=pairs), passages,
                        settings.max_answer_tokens).messages


def answer(reader, settings, messages: list[dict]) -> str:
    from assistant.answering.generate import clean_answer

    return clean_answer(reader.generate(messages, max_tokens=settings.max_answer_tokens).text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--verify", type=int, default=0, help="re-answer N questions from the current read set")
    parser.add_argument("--out", type=Path, help="write each question's answers here (JSONL)")
    parser.add_argument("--shard", default="1/1", help="K/N: only every N-th hopped question from the K-th "
                        "(to split a run over processes; --out files concatenate)")
    parser.add_argument("--only", default="", help="comma-separated question ids: replay only these")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of: " + ", ".join(VARIANTS))
    args = parser.parse_args()
    config_path = args.results.with_suffix(".config.json")
    if not args.results.is_file() or not config_path.is_file():
        raise AssistantError(f"no results file with its .config.json at {args.results}")
    config = json.loads(config_path.read_text())
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if unknown := [v for v in variants if v not in VARIANTS]:
        raise AssistantError(f"unknown read set {unknown[0]!r} (choose from: {', '.join(VARIANTS)})")

    from research.evaluation.results import ResultsFile
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    settings = load_settings(reader=args.reader, k=config["k"])
    embedder = registry.get_embedder(settings)
    replay = Replay(HybridRetriever(IndexStore.open(Path(config["corpus"])), embedder),
                    RelevanceJudge(shipped_judge_path(), n_threads=settings.n_threads), settings)
    reader = registry.get_reader(settings)
    records = [r for r in ResultsFile(args.results).records.values() if r["resolved_by"].startswith("multi-hop")]
    if any(hop_read_of(r) != "first" for r in records):
        raise AssistantError(f"{args.results} was made with hop_read=union: this replays runs made with "
                             "default:hop_read=first,hop_facts=true (their answers are the 'current' row)")
    try:
        shard, shards = (int(x) for x in args.shard.split("/"))
        assert 1 <= shard <= shards
    except (ValueError, AssertionError):
        raise AssistantError(f"--shard {args.shard!r}: write K/N with 1 <= K <= N") from None
    wanted = {i.strip() for i in args.only.split(",") if i.strip()}
    if missing := sorted(wanted - {r["id"] for r in records}):
        raise AssistantError(f"--only: {missing[0]!r} is not a question that took the hop in {args.results}")
    records = [r for r in records[shard - 1::shards] if not wanted or r["id"] in wanted]
    totals = {v: {"em": 0.0, "f1": 0.0, "tokens": 0, "passages": 0} for v in variants}
    out = args.out.open("w") if args.out else None
    for n, record in enumerate(records):
        pairs = [tuple(p) for p in record["sub_answers"]]
        draft = next(d["text"] for d in record["drafts"] if d["basis"].startswith("multi-hop"))
        sets = read_sets(replay, record["question"], record)
        done: dict[tuple, tuple[str, int]] = {}
        row = {"id": record["id"], "gold": record["gold"]}
        for variant in variants:
            facts = [] if variant.endswith(NO_FACTS) else pairs
            read = sets[variant.removesuffix(NO_FACTS)]
            key = tuple(p.id for p in read)
            if (key, bool(facts)) not in done:
                messages = fitted_prompt(reader, settings, record["question"], read, facts)
                replayed = variant == "current" and n >= args.verify  # the recorded draft is its answer
                text = draft if replayed else answer(reader, settings, messages)
                if variant == "current" and text != draft:
                    print(f"verify: {record['id']} answered {text!r}, recorded {draft!r}")
                done[key, bool(facts)] = (text, len(reader.prompt_tokens(messages)))
            text, tokens = done[key, bool(facts)]
            scores = metrics.score(text, record["gold"], record["kind"])
            totals[variant]["em"] += scores["em"]
            totals[variant]["f1"] += scores["f1"]
            totals[variant]["tokens"] += tokens
            totals[variant]["passages"] += len(key)
            row[variant] = {"answer": text, "em": scores["em"], "passages": list(key)}
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()
        print(f"{n + 1}/{len(records)} " + " ".join(f"{v}={row[v]['em']:.0f}" for v in variants), flush=True)
    n = max(len(records), 1)
    print(f"\n{len(records)} questions took the hop ({args.results})\n")
    print("| read set | EM | F1 | passages | prompt tokens |\n| --- | --- | --- | --- | --- |")
    for v in variants:
        t = totals[v]
        print(f"| {v} | {100 * t['em'] / n:.1f} | {100 * t['f1'] / n:.1f} | {t['passages'] / n:.1f} | "
              f"{t['tokens'] / n:.0f} |")


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
