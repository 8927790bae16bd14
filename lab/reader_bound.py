"""How well can the reader answer a multi-hop question when it reads the whole chain? The bound
that retrieval leaves to the reader (issue 32), on MuSiQue-format training questions.

Each question is answered once, with the product's answer prompt (prompts.from_passages, fitted as
generate_answer fits it), from one of these read sets:
- hop: exactly its gold supporting paragraphs, in the order of its question_decomposition;
- shuffled: the same paragraphs in an order fixed by the question's id (does hop order matter?);
- hop+facts: hop, with each decomposition step's question (earlier answers filled in for "#1") and
  gold answer as facts (an oracle decomposition: the last fact is the answer, so this is a ceiling
  of copying, not of reading);
- hop+dist: hop, then the passages of a recorded run's read set (--results) that are not gold
  support, up to --read passages in all (does a full read set's noise cost the reader?).
Writes one JSON line per question (--out, resumable) and prints EM/F1 by hop count.

    .venv/bin/python lab/reader_bound.py DATA.json --reader QWEN.gguf --variant hop --out OUT.jsonl
        [--results lab/results/tune_musique_read/default__...jsonl]

Training questions only: the file's questions are kept when relevance_data.training_questions has
them (report and reserved questions dropped by id and text), so a report or reserved file is refused.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.events.core import Passage  # noqa: E402
from models.errors import AssistantError  # noqa: E402

VARIANTS = ("hop", "shuffled", "hop+facts", "hop+dist")


def chain(record: dict) -> list[Passage]:
    paragraphs = record["paragraphs"]
    return [Passage(id=str(i), text=paragraphs[i]["paragraph_text"], title=paragraphs[i]["title"])
            for i in (step["paragraph_support_idx"] for step in record["question_decomposition"])]


def oracle_facts(record: dict) -> list[tuple[str, str]]:
    """Each step's question with "#k" replaced by step k's gold answer, and its gold answer."""
    answers: list[str] = []
    facts = []
    for step in record["question_decomposition"]:
        asked = re.sub(r"#(\d+)", lambda m: answers[int(m.group(1)) - 1] if int(m.group(1)) <= len(answers)
                       else m.group(0), step["question"])
        answers.append(step["answer"])
        facts.append((asked, step["answer"]))
    return facts


def read_set(record: dict, variant: str, recorded: dict | None = None, read: int = 5) -> list[Passage]:
    passages = chain(record)
    if variant == "shuffled":
        random.Random(record["id"]).shuffle(passages)
    elif variant == "hop+dist":
        from index_builder.datasets import Paragraph, QAExample
        from research.evaluation.support import support_hider

        # gold as `assistant eval` matches it: the same title, the text a chunk of the paragraph's
        is_gold = support_hider(QAExample(record["id"], record["question"], [],
                                          [Paragraph(p.title, p.text, True) for p in passages]))
        extra = [Passage(id=str(p.get("id")), text=p["text"], title=p["title"]) for p in (recorded or {}).get("read", [])]
        passages += [p for p in extra if not is_gold(p)][:max(0, read - len(passages))]
    return passages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a MuSiQue-format training file (question_decomposition)")
    parser.add_argument("--shared-data", type=Path, default=ROOT.parent / "shared" / "data",
                        help="the shared data folder (which questions are training questions)")
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--variant", choices=VARIANTS, default="hop")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--results", type=Path, help="a recorded run of the same questions (hop+dist)")
    parser.add_argument("--read", type=int, default=5, help="hop+dist: passages read in all")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    args = parser.parse_args()
    try:
        run(args)
    except AssistantError as exc:
        raise SystemExit(f"error: {exc}") from None


def run(args) -> None:
    from assistant.answering import prompts
    from assistant.answering.generate import clean_answer
    from research.evaluation import metrics
    from assistant.answering.prompt_fit import fit_passages
    from research.judge_training.relevance_data import check_data_dir, training_questions
    from models import registry
    from models.config import load_settings

    file_key = "/".join(args.data.resolve().parts[-2:])  # as relevance_data names the training files
    allowed = {q.example.id for q in training_questions(check_data_dir(args.shared_data)) if q.file == file_key}
    if not allowed:
        raise AssistantError(f"{file_key} has no training questions (report and reserved files have none)")
    if args.variant == "hop+dist" and not args.results:
        raise AssistantError("hop+dist needs --results (the recorded run whose read sets add the noise)")
    try:
        records = json.loads(args.data.read_text(encoding="utf-8"))
        recorded = {}
        if args.results:
            recorded = {row["id"]: row for row in map(json.loads, args.results.read_text().splitlines())}
    except (OSError, ValueError) as exc:
        raise AssistantError(f"cannot read the inputs ({type(exc).__name__}: {exc})") from None
    settings = load_settings(reader=str(args.reader))
    reader = registry.get_reader(settings)
    done = [json.loads(line) for line in args.out.read_text().splitlines()] if args.out.exists() else []
    seen = {row["id"] for row in done}
    with args.out.open("a", encoding="utf-8") as out:
        for record in records[:args.limit]:
            if record["id"] in seen or record["id"] not in allowed or not record.get("question_decomposition"):
                continue
            facts = oracle_facts(record) if args.variant == "hop+facts" else []
            passages = read_set(record, args.variant, recorded.get(record["id"]), args.read)
            messages = fit_passages(reader, lambda ps: prompts.from_passages(record["question"], ps, facts=facts),
                                    passages, settings.max_answer_tokens).messages
            text = clean_answer(reader.generate(messages, max_tokens=settings.max_answer_tokens).text)
            golds = [record["answer"]] + list(record.get("answer_aliases") or [])
            scores = metrics.score(text, golds)
            row = {"id": record["id"], "answer": text, "em": scores["em"], "f1": scores["f1"],
                   "hops": len(record["question_decomposition"]), "read": len(passages)}
            out.write(json.dumps(row) + "\n")
            out.flush()
            done.append(row)
    by = defaultdict(lambda: [0, 0.0, 0.0])
    for row in done:
        for key in ("all", f"{row['hops']} hops"):
            by[key][0] += 1
            by[key][1] += row["em"]
            by[key][2] += row["f1"]
    for key, (n, em, f1) in sorted(by.items()):
        print(f"{args.variant} {key}: {n} questions, EM {100 * em / n:.1f}, F1 {100 * f1 / n:.1f}")


if __name__ == "__main__":
    main()
