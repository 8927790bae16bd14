"""Give the recorded answers from memory the search the memory check now makes (runs recorded before it).

The default strategy looks an answer from the reader's memory up in the documents (option
`memory_check`): one search with the question, no reader call, so the answer itself never changes.
A results file recorded before that has no read set for such answers. This writes a copy of it
(NAME__memory-lookup.jsonl, beside it or in --out) in which each of them carries the passages that search finds
in the run's own index (its config.json names the corpus, k, the dataset and whether the support was
hidden), searched as the pipeline searches (assistant.context.RunContext.retrieve), so that
`lab/grounding_replay.py` on the copy replays the check exactly as a new run would make it.

    python -m lab.memory_lookup RESULTS.jsonl [--out DIR]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.context import RunContext
from index_builder.datasets import load_dataset
from research.evaluation.support import hiding_support
from research.judge_training.chain_fit import run_plain
from assistant.retrieval.retriever import HybridRetriever
from models.config import Settings
from models.errors import AssistantError


def searched(ctx: RunContext, question: str) -> list:
    """The passages of the pipeline's memory-check search (its events dropped)."""
    return run_plain(ctx.retrieve(question))


def look_up(results: Path, out_dir: Path | None = None) -> tuple[Path, int]:
    """Write the copy; returns (its path, answers from memory given a read set)."""
    from index_builder.store import IndexStore
    from models import registry

    config = json.loads(results.with_name(results.name.removesuffix(".jsonl") + ".config.json").read_text())
    settings = Settings().with_overrides(k=config["k"])
    retriever = HybridRetriever(IndexStore.open(Path(config["corpus"])), registry.get_embedder(settings))
    examples = {e.id: e for e in load_dataset(Path(config["dataset"]))}
    ctx = RunContext(settings=settings, reader=None, retriever=retriever)
    out, given = [], 0
    for line in results.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("resolved_by", "").startswith("self-knowledge") and not record.get("read"):
            example = examples[record["id"]]
            ctx.retriever = hiding_support(retriever, example) if config.get("drop_support") else retriever
            record["read"] = [{"id": p.id, "title": p.title, "text": p.text}
                              for p in searched(ctx, record["question"])]
            given += 1
        out.append(json.dumps(record, ensure_ascii=False))
    copy = (out_dir or results.parent) / (results.name.removesuffix(".jsonl") + "__memory-lookup.jsonl")
    copy.write_text("\n".join(out) + "\n", encoding="utf-8")
    return copy, given


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="the folder for the copy (default: beside it)")
    args = parser.parse_args()
    try:
        copy, given = look_up(args.results, args.out)
    except (OSError, ValueError, KeyError, AssistantError) as exc:
        raise SystemExit(f"error: cannot look up {args.results} ({type(exc).__name__}: {exc}); it needs the "
                         "run's .config.json beside it and that config's corpus index and dataset") from None
    print(f"{given} answers from memory looked up: {copy}")


if __name__ == "__main__":
    main()
