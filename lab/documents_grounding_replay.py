"""Replay the grounding check for a person's files on recorded personal-set runs (issue 51): labels
and citations recomputed from what each answer read, then scored as lab/personal_eval.py scores.

Compares the check without and with the question's subject (grounding/documents.subject_of: its
rarest word in the person's own index must stand in a cited passage), counting words in the
index the run used. No reader, a few seconds.

    ASSISTANT_DATA_DIR=/tmp/personal-eval-data python -m lab.documents_grounding_replay RUN_DIR [RUN_DIR ...]
"""
from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from research.evaluation.personal_set import load_personal
from assistant.events.core import Passage
from assistant.grounding.documents import ground_documents, subject_of
from lab.personal_scoring import rows, score, table

QUESTIONS = Path(__file__).parent / "personal_docs" / "questions.jsonl"


def word_counter(index: Path):
    import lancedb

    passages = lancedb.connect(str(index)).open_table("passages")

    def passages_with(word: str, cap: int = 50) -> int:
        return len(passages.search(word, query_type="fts", fts_columns="search_text").limit(cap)
                   .select(["id", "_score"]).to_list())
    return passages_with


def file_namer(index: Path):
    """The index's one-word file names, as the product reads them (index_files.one_word_names)."""
    import lancedb

    from assistant.retrieval.index_files import one_word_names

    names = one_word_names(lancedb.connect(str(index)).open_table("documents").to_arrow().column("path").to_pylist())
    return lambda: names


def regrounded(record: dict, subject: frozenset[str], states=None, named: frozenset[str] = frozenset()) -> dict:
    if record.get("resolved_by", "").startswith("folder") or not record.get("read"):
        return record  # a folder answer brings its own citations
    given = [Passage(id=p["id"], text=p["text"], title=p.get("title", ""), path=p.get("path", ""),
                     section=p.get("section", "")) for p in record["read"]]
    memory = record.get("resolved_by", "").startswith("self-knowledge")
    checked = ground_documents(record["prediction"], record["question"], given, from_memory=memory, subject=subject,
                               parts=record.get("resolved_by", "").startswith("parts"), states=states, named=named)
    return {**record, "grounding": checked.grounding, "cited_paths": [p.path for p in checked.cited]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--index", type=Path, default=Path("/tmp/personal-eval-data/index"))
    parser.add_argument("--list", action="store_true", help="the questions whose label changes")
    args = parser.parse_args()
    questions = {q.id: q for q in load_personal(QUESTIONS)}
    count = word_counter(args.index)
    for run in args.runs:
        records = [json.loads(line) for f in sorted(run.glob("default__*.jsonl")) for line in f.read_text().splitlines()]
        scored = {}
        for name, subject_on in (("recorded check", None), ("check now", False), ("check now + subject", True)):
            out = []
            for record in records:
                q = questions[record["id"]]
                if subject_on is not None:
                    subject = subject_of(record["question"], count) if subject_on else frozenset()
                    record = regrounded(record, subject)
                out.append(score(q, record, name))
            scored[name] = out
        print(f"## {run} ({len(records)} records)\n")
        print(table([r for name, s in scored.items() for r in rows(s, [name]) if r.kind == "all"]))
        if args.list:
            for before, after in zip(scored["check now"], scored["check now + subject"]):
                if before.label != after.label:
                    print(f"- {before.id}: {before.label} -> {after.label} (right: {before.right}) {before.answer[:70]!r}")
        print()


if __name__ == "__main__":
    main()
