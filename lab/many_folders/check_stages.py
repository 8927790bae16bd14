"""The answer checks of the default on files, stage by stage, replayed on a many-folders run (issue 62).

    PYTHONPATH=. .venv/bin/python -m lab.many_folders.check_stages RUN_DIR --data-root DIR [--collections report]

From the default's records under RUN_DIR/NAME/ (what each answer read, and the re-read's verdicts
as the reader gave them), each answer is labelled again, no reader loaded:
- "checks: none": every answer presented as its passages' (cited: all it read), as rag is;
- "word check": the word check alone (grounding/documents.py, `reread=false`);
- "word check + re-read": the word check with the recorded verdicts of the re-read (this replays
  the run: its labels must be the run's, which the table's "as run" row shows);
and scored as lab.folders_eval scores. Then the re-read as a judge of the answer it reads again,
with the same reader that wrote it: of the right answers it read, how many it refused; of the wrong
ones, how many it confirmed. DIR/NAME/index is the collection's index (for the question's subject
and the files it names).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assistant.grounding.documents import files_named, subject_of
from assistant.retrieval.index_files import one_word_names_of
from lab.documents_grounding_replay import regrounded
from lab.many_folders.questions_file import QUESTIONS, load_questions
from lab.many_folders.scoring import _share, score_folder, table
from lab.personal_eval import records_by_strategy
from models.errors import AssistantError

VARIANTS = ("as run", "checks: none", "word check", "word check + re-read")


class Recorded:
    """The re-read's verdicts as recorded: `states` answers from them (a claim not recorded was
    not read again: it stands, as needs_reading would have it)."""

    def __init__(self, rereads):
        self.verdicts = {(v["asked"], v["claim"]): v["confirmed"] for v in rereads or []}

    def states(self, asked, claim, passages) -> bool:
        return self.verdicts.get((asked, claim), True)


def relabelled(record: dict, variant: str, subject, named) -> dict:
    if variant == "as run":
        return record
    if variant == "checks: none":
        return {**record, "grounding": "", "cited_paths": [p.get("path", "") for p in record.get("read") or []]}
    states = Recorded(record.get("rereads")).states if variant == "word check + re-read" else None
    return regrounded(record, subject, states, named)


def _retriever(index: Path, collection: str):
    """The collection's retriever as the run had it: its rare words and file names are counted as
    the product counts them (the word check's subject and named files)."""
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.collections import check_known
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings

    store = IndexStore.open(index)
    return HybridRetriever(store, registry.get_embedder(load_settings()), sources=check_known(store.meta, collection))


def with_sections(records: list[dict], store) -> list[dict]:
    """Records made before the harness kept each passage's section (the word check reads it, as
    the file's heading) get it from the index, by passage id."""
    missing = {p["id"] for r in records for p in r.get("read") or [] if "section" not in p}
    if not missing:
        return records
    quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in missing)
    rows = store.passages.search().where(f"id IN ({quoted})").select(["id", "section"]).limit(len(missing)).to_list()
    section = {row["id"]: row["section"] or "" for row in rows}
    return [{**r, "read": [{**p, "section": p.get("section", section.get(p["id"], ""))} for p in r.get("read") or []]}
            for r in records]


def replay(run_dir: Path, data_root: Path, which: str, questions_file: Path = QUESTIONS):
    """(every relabelled answer scored, the re-read verdicts as (right, confirmed) pairs)."""
    questions = {q.id: q for q in load_questions(questions_file, which)}
    scored, verdicts = [], []
    for folder in sorted(p for p in run_dir.iterdir() if p.is_dir()):
        retriever = _retriever(data_root / folder.name / "index", folder.name)
        counter, names = retriever.passages_with, one_word_names_of(retriever)
        for strategy, records in records_by_strategy(folder):
            if strategy != "default":
                continue
            for record in with_sections(records, retriever.store):
                question = questions.get(record["id"])
                if question is None:
                    continue
                subject = subject_of(record["question"], counter)
                named = files_named(record["question"], names)
                for variant in VARIANTS:
                    scored.append(score_folder(question, relabelled(record, variant, subject, named), variant))
                right = scored[-1].scored.right and question.answerable
                verdicts += [(right, v["confirmed"]) for v in record.get("rereads") or []]
    return scored, verdicts


def reread_line(verdicts) -> str:
    right = [c for r, c in verdicts if r]
    wrong = [c for r, c in verdicts if not r]
    return (f"the re-read (the answering reader reading its lines again): refused {_share(right.count(False), len(right))} "
            f"of the claims of right answers, confirmed {_share(wrong.count(True), len(wrong))} of the claims of "
            "answers not right (unanswerable questions' included)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--data-root", type=Path, required=True)
    parser.add_argument("--collections", default="report")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--no-kinds", action="store_true")
    args = parser.parse_args(argv)
    try:
        scored, verdicts = replay(args.run, args.data_root, args.collections, args.questions)
    except (AssistantError, OSError) as exc:  # no index for a collection, a run folder missing
        raise SystemExit(f"error: {exc}") from None
    print(table(scored, VARIANTS, not args.no_kinds))
    print()
    print(reread_line(verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
