"""The follow-up set (tests/data/followups.jsonl): does the rewrite name what turn 2's pronoun
stands for, and is the answer to the rewritten question right as often as to the standalone form?

Each conversation's turn 1 is given with its gold answer (as if answered right), so the rewrite
alone is tested. Answers use one strategy (default: rag, k=3) over a small index built here:
examples/docs and the context paragraphs of the HotpotQA training questions the set was made
from (training data only). Correct: the gold answer appears in the answer (substring_match).

Run: ASSISTANT_N_THREADS=1 nice -n 10 .venv/bin/python lab/followup_eval.py --reader QWEN.gguf
     [--strategy rag] [--limit N] [--out lab/results/followups_qwen.json]
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import tempfile
import time
from pathlib import Path

from assistant import service
from assistant.conversation import chat as chat_service
from assistant.events.details import QuestionRewritten
from research.evaluation.metrics import substring_match
from assistant.events.core import Answer
from assistant.conversation.threads import Turn
from models.config import load_settings

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "tests" / "data" / "followups.jsonl"
HOTPOT = ROOT.parent.parent / "shared" / "data" / "hotpotqa" / "hotpotqa_train_100.hipporag.json"


def corpus_folder(conversations: list[dict], out: Path, hotpot: Path) -> Path:
    """examples/docs plus each HotpotQA conversation's context paragraphs, one file each."""
    import shutil

    shutil.copytree(ROOT / "examples" / "docs", out / "docs")
    wanted = {c["id"].removeprefix("hotpotqa-train-") for c in conversations if c["id"].startswith("hotpotqa")}
    for record in json.loads(hotpot.read_text(encoding="utf-8")):
        if record["_id"] not in wanted:
            continue
        context = record["context"]
        context = ast.literal_eval(context) if isinstance(context, str) else context
        for title, sentences in context:
            name = re.sub(r"[^A-Za-z0-9]+", "_", title)[:60] or "untitled"
            (out / "hotpot" / f"{name}.md").parent.mkdir(parents=True, exist_ok=True)
            (out / "hotpot" / f"{name}.md").write_text(f"# {title}\n\n{''.join(sentences)}\n", encoding="utf-8")
    return out


def final(events) -> tuple[str, str]:
    """(the rewritten question or "", the answer text)."""
    rewritten, answer = "", ""
    for event in events:
        if isinstance(event, QuestionRewritten):
            rewritten = event.standalone
        elif isinstance(event, Answer):
            answer = event.text
    return rewritten, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--strategy", default="rag")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--hotpot", type=Path, default=HOTPOT)
    parser.add_argument("--out", type=Path, default=ROOT / "lab" / "results" / "followups_qwen.json")
    args = parser.parse_args()
    conversations = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]
    conversations = conversations[: args.limit]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(reader=args.reader, k=args.k).with_overrides(data_dir=Path(tmp) / "data")
        service.add_source(settings, corpus_folder(conversations, Path(tmp) / "corpus", args.hotpot))
        for c in conversations:
            started = time.perf_counter()
            history = [Turn(c["turn1"], c["answer1"])]
            rewritten, via_rewrite = final(chat_service.ask(c["turn2"], args.strategy, settings, history=history))
            _, standalone = final(service.ask(c["standalone"], args.strategy, settings))
            row = {"id": c["id"], "turn2": c["turn2"], "rewritten": rewritten,
                   "names_referent": any(r.lower() in rewritten.lower() for r in c["referent"]),
                   "answer_rewritten": via_rewrite, "answer_standalone": standalone, "gold": c["answer2"],
                   "right_rewritten": substring_match(via_rewrite, [c["answer2"]]),
                   "right_standalone": substring_match(standalone, [c["answer2"]]),
                   "seconds": round(time.perf_counter() - started, 1)}
            rows.append(row)
            print(json.dumps(row, ensure_ascii=False), flush=True)
    n = len(rows)
    summary = {"reader": args.reader.name, "strategy": args.strategy, "k": args.k, "conversations": n,
               "names_referent": sum(r["names_referent"] for r in rows) / n,
               "right_rewritten": sum(r["right_rewritten"] for r in rows) / n,
               "right_standalone": sum(r["right_standalone"] for r in rows) / n}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, ensure_ascii=False, indent=1), encoding="utf-8")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
