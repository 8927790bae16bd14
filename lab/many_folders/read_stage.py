"""What the default reads on a person's files, without the reader: issue 62's "what is read" rows.

    PYTHONPATH=. .venv/bin/python -m lab.many_folders.read_stage --collections report --data-root DIR

For each question of the chosen collections whose answer a passage holds (one fact, two facts, two
files), whether the passages read hold every part (scoring.holding_read: a passage of a holding
file writing the part), for what each way of choosing them reads:
- rag@10: the search's top 10 (what `--strategy rag` reads);
- search@5: the search's top 5 alone;
- judge: the trained judge's kept passages over the wide pool, alone;
- fusion: the judge's kept passages and the search's best FILES.search_kept beside them (the
  default's first look-up on files);
- default: the fusion for each part the default splits the question into (answering/parts.py), or
  for the whole question; "default, SmolLM2": with the search's best as many as the bundled
  SmolLM2's preset reads (the code's value is Qwen's).
Only the first look-up: ReFeed's second search (after a draft) and a memory answer read more or
nothing. No reader is loaded: minutes for hundreds of questions. DIR/NAME/index is each
collection's index, as lab.folders_eval builds it.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from lab.many_folders.questions_file import QUESTIONS, load_questions
from research.judge_training.chain_fit import run_plain
from lab.many_folders.scoring import FACT_KINDS, _share, holding_read
from models.errors import AssistantError

WAYS = ("rag@10", "search@5", "judge", "fusion", "default", "default, SmolLM2")


def ways_read(ctx, question: str) -> dict[str, list]:
    """The passages each way reads for one question."""
    from assistant.answering.hops import add_new
    from assistant.answering.parts import parts_of
    from assistant.profiles.settings import FILES
    from assistant.retrieval.rerank import judge_pool
    from assistant.tuning import BUNDLED_PRESET, in_preset

    def first_look(asked: str):
        pool = run_plain(ctx.retrieve(asked, k=ctx.settings.pool))
        return pool, (run_plain(judge_pool(ctx, asked, pool)).kept if pool else [])

    def fused(looks, beside: int) -> list:
        read = []
        for pool, kept in looks:
            read = add_new(read, add_new(list(kept), pool[:beside]))
        return read

    whole = first_look(question)
    looks = [first_look(part.question) for part in parts_of(question) or []] or [whole]
    return {"rag@10": run_plain(ctx.retrieve(question, k=10)), "search@5": whole[0][:5], "judge": whole[1],
            "fusion": fused([whole], FILES.search_kept), "default": fused(looks, FILES.search_kept),
            "default, SmolLM2": fused(looks, in_preset(FILES, BUNDLED_PRESET).search_kept)}


Row = tuple[str, str, str, bool, int]  # collection, kind, way, holding passage read, passages read


def measure(collections: str, data_root: Path, questions_file: Path = QUESTIONS) -> list[Row]:
    """A row per way for every fact question of the chosen collections."""
    from assistant.runner import build_context
    from assistant.strategies import make_strategy
    from models.config import load_settings

    questions = [q for q in load_questions(questions_file, collections) if q.kind in FACT_KINDS]
    rows, strategy = [], make_strategy("default")
    for name in dict.fromkeys(q.collection for q in questions):
        settings = load_settings().with_overrides(index=data_root / name / "index", collection=name)
        ctx = build_context(settings, strategy)
        for q in (q for q in questions if q.collection == name):
            for way, read in ways_read(ctx, q.question).items():
                rows.append((name, q.kind, way, bool(holding_read(q, {"read": [asdict(p) for p in read]})), len(read)))
    return rows


def table(rows: list[Row]) -> str:
    """Per collection (then all) and kind: the share of questions each way reads the holding passage
    for; then how many passages each way reads, on average (a prompt's length is most of an
    answer's time)."""
    lines = ["| collection | kind | n | " + " | ".join(WAYS) + " | default / rag@10 |", "|" + " --- |" * (len(WAYS) + 4)]
    for collection in sorted({r[0] for r in rows}) + ["all"]:
        for kind in ("all",) + FACT_KINDS:
            chosen = [r for r in rows if collection in ("all", r[0]) and kind in ("all", r[1])]
            if not chosen:
                continue
            got = {w: sum(r[3] for r in chosen if r[2] == w) for w in WAYS}
            n = sum(1 for r in chosen if r[2] == WAYS[0])
            ratio = f"{100 * got['default'] / got['rag@10']:.0f}%" if got["rag@10"] else "-"
            lines.append(f"| {collection} | {kind} | {n} | " + " | ".join(_share(got[w], n) for w in WAYS)
                         + f" | {ratio} |")
    read = {w: [r[4] for r in rows if r[2] == w] for w in WAYS}
    lines += ["", "passages read, mean: " + ", ".join(f"{w} {sum(n) / len(n):.1f}" for w, n in read.items() if n)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collections", default="choose", help="choose, report, all, or names with commas")
    parser.add_argument("--data-root", type=Path, required=True, help="DIR/NAME/index per collection")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    args = parser.parse_args(argv)
    try:
        print(table(measure(args.collections, args.data_root, args.questions)))
    except (AssistantError, OSError) as exc:  # no index for a collection, a missing questions file
        raise SystemExit(f"error: {exc}") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
