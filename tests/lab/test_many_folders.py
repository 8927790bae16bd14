"""The many-folders benchmark (issue 62): its generator is deterministic and keeps only checked
questions, its committed questions file keeps the split by collection and the unanswerable share,
and its scoring finds the holding passage among those read."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lab.many_folders import formats, generate
from lab.many_folders.collections import COLLECTIONS, Collection, Item
from lab.many_folders.materialise import build
from lab.many_folders.pools import OPTION_POOL_PAGES, collection_facts
from lab.many_folders.questions_file import QUESTIONS, load_questions
from lab.many_folders.scoring import holding_read
from lab.personal_scoring import alias_in

FIXTURE_PAGES = ("fold", "fmt", "truncate")  # coreutils: on every Debian machine with man-db


def _have_man_pages(pages) -> bool:
    if not shutil.which("man") or not shutil.which("col"):
        return False
    return all(subprocess.run(["man", "-w", page], capture_output=True, check=False).returncode == 0 for page in pages)


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """Three real man pages as a one-collection folder ("command-manuals" by name, so that the
    generator reads them as commands), built as materialise.py builds it."""
    if not _have_man_pages(FIXTURE_PAGES + OPTION_POOL_PAGES):
        pytest.skip(f"man pages {', '.join(FIXTURE_PAGES + OPTION_POOL_PAGES)} are not installed here")
    collection = Collection("command-manuals", "choose", "test fixture",
                            tuple(Item(f"{page}.txt", "man_txt", page) for page in FIXTURE_PAGES))
    dest = tmp_path_factory.mktemp("folders")
    build(collection, dest)
    return generate.Folder.read(collection, dest)


def _questions(folder) -> list[dict]:
    facts = collection_facts(folder.collection, folder.root, folder.texts)
    return (generate.fact_questions(folder, facts) + generate.folder_questions(folder, facts)
            + generate.unanswerable_questions(folder, facts))


def test_generator_is_deterministic(tiny_folder):
    first, second = _questions(tiny_folder), _questions(tiny_folder)
    assert first and first == second
    assert {q["kind"] for q in first} >= {"one_fact", "unanswerable", "folder"}


def test_every_answer_is_in_its_holding_files_extracted_text(tiny_folder):
    from index_builder.extract import extract

    for question in _questions(tiny_folder):
        for part, files in zip(question["answers"], question["holding_files"]):
            if question["kind"] == "folder" and question.get("source") in ("which", "how-many"):
                continue  # the answer names files; that each file mentions the term is checked below
            for file in files:
                path = tiny_folder.root / file
                extracted = extract(path, path.read_bytes())
                text = "\n".join([extracted.title] + [f"{s.heading}\n{s.text}" for s in extracted.sections])
                assert any(alias_in(alias, text) for alias in part), (question["question"], part, file)


def test_unanswerable_key_terms_are_in_no_file(tiny_folder):
    missing = [q for q in _questions(tiny_folder) if q["kind"] == "unanswerable"]
    assert missing
    for question in missing:
        assert question["key_term"] in question["question"]
        assert not any(question["key_term"].lower() in text.lower() for text in tiny_folder.texts.values())


def test_which_files_questions_name_exactly_the_files_that_mention_the_term(tiny_folder):
    asked = [q for q in _questions(tiny_folder) if q.get("source") in ("which", "how-many")]
    assert asked
    for question in asked:
        term = question["key_term"]
        assert term in question["question"]
        as_a_name = re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])")  # not inside a longer option
        mentioning = sorted(f for f, text in tiny_folder.texts.items() if as_a_name.search(text))
        assert sorted(question["expected_files"]) == mentioning


def test_committed_questions_keep_the_split_by_collection_and_the_unanswerable_share():
    questions = load_questions(QUESTIONS)
    sides = {}
    for question in questions:
        sides.setdefault(question.collection, set()).add(question.split)
    assert all(len(split) == 1 for split in sides.values()), sides
    report = [name for name, split in sides.items() if split == {"report"}]
    assert len(report) >= 2 and len({COLLECTIONS[name].kind for name in report}) == len(report)
    assert len(sides) >= 6 and len(questions) >= 600
    assert sum(q.kind == "unanswerable" for q in questions) >= 0.25 * len(questions)
    assert {q.kind for q in questions} == {"one_fact", "two_facts", "two_files", "folder", "unanswerable"}
    for question in questions:
        assert question.answerable == bool(question.holding_files or question.expected_count is not None)


def test_committed_questions_are_worded_many_ways():
    """No single template carries a kind: the most common opening of a kind's questions is
    under half of them."""
    records = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]
    for kind in ("one_fact", "unanswerable", "folder"):
        openings = [" ".join(r["question"].split()[:2]) for r in records if r["kind"] == kind]
        top = max(openings.count(o) for o in set(openings))
        assert top < len(openings) / 2, kind


def test_holding_read_wants_a_passage_of_the_holding_file_that_writes_the_answer():
    question = next(q for q in load_questions(QUESTIONS, "choose") if q.kind == "one_fact")
    file, alias = question.holding_of(0)[0], question.answers[0][0]
    held = {"read": [{"path": f"/docs/{question.collection}/{file}", "text": f"... {alias} ..."}]}
    elsewhere = {"read": [{"path": "/docs/other.txt", "text": f"... {alias} ..."}]}
    silent = {"read": [{"path": f"/docs/{question.collection}/{file}", "text": "nothing here"}]}
    assert holding_read(question, held) is True
    assert holding_read(question, elsewhere) is False
    assert holding_read(question, silent) is False


def test_odt_files_are_read_back_by_the_products_extractor(tmp_path: Path):
    from index_builder.extract import extract

    data = formats.odt_bytes("sample manual", [("h1", "Options"), ("p", "-x  exclude the named files.")])
    path = tmp_path / "sample.odt"
    path.write_bytes(data)
    extracted = extract(path, data)
    assert "exclude the named files" in " ".join(s.text for s in extracted.sections)
    assert formats.odt_bytes("sample manual", [("p", "same")]) == formats.odt_bytes("sample manual", [("p", "same")])


def test_no_collection_is_made_from_reserved_documents():
    """The data rules reserve packages' README/AUTHORS/NEWS/copyright files, Python packages'
    METADATA and LICENSE files, and SQLite's and git's documentation."""
    reserved = re.compile(r"(^|/)(README|AUTHORS|NEWS|copyright|METADATA|LICENSE)[^/]*$|sqlite|(^|[/_-])git", re.I)
    sources = [item.source for collection in COLLECTIONS.values() for item in collection.items]
    assert sources and not [source for source in sources if reserved.search(source)]


def test_folders_eval_replay_scores_each_collection_and_kind(tmp_path: Path):
    """Records of two strategies for one collection: the table has the collection's rows, a right
    answer labelled "not in your documents" is counted as such, and the holding passage read."""
    from lab.folders_eval import report

    questions = [q for q in load_questions(QUESTIONS, "command-manuals")]
    fact = next(q for q in questions if q.kind == "one_fact")
    missing = next(q for q in questions if q.kind == "unanswerable")
    file, alias = fact.holding_of(0)[0], fact.answers[0][0]
    held = [{"path": f"/d/command-manuals/{file}", "text": f"{alias}  the option"}]
    records = {
        "default": [{"id": fact.id, "prediction": alias, "grounding": "not in your documents", "read": held,
                     "cited_paths": [], "seconds": 2.0, "counts": {"reader_calls": 2}},
                    {"id": missing.id, "prediction": "Not in your documents.", "grounding": "not in your documents",
                     "read": [], "cited_paths": [], "seconds": 1.0, "counts": {"reader_calls": 1}}],
        "rag": [{"id": fact.id, "prediction": alias, "read": held, "cited_paths": [f"/d/command-manuals/{file}"],
                 "citations": [1], "seconds": 3.0, "counts": {"reader_calls": 1}},
                {"id": missing.id, "prediction": "It removes files.", "read": [], "cited_paths": ["/d/x.txt"],
                 "citations": [1], "seconds": 3.0, "counts": {"reader_calls": 1}}]}
    out = tmp_path / "run" / "command-manuals"
    out.mkdir(parents=True)
    (out / "strategies.json").write_text(json.dumps(list(records)))
    for strategy, rows in records.items():
        (out / f"{strategy}__reader.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = report(tmp_path / "run", QUESTIONS, "command-manuals")
    lines = {tuple(cell.strip() for cell in line.split("|")[1:4]): line for line in table.splitlines()}
    default_all = lines[("command-manuals", "all", "default")]
    rag_all = lines[("command-manuals", "all", "rag")]
    assert "2/2 (100%)" in default_all  # right: the fact and the honest unanswerable
    assert "| 1/1 (100%) | 0/2 (0%) | 1/1 (100%) | 1/1 (100%) |" in default_all  # not in docs, wrong-supported, honest, read
    assert "1/2 (50%)" in rag_all and "0/1 (0%)" in rag_all  # the unanswerable answered as supported
    assert ("command-manuals", "one_fact", "default") in lines and ("all", "all", "rag") in lines


def test_the_read_stage_reads_the_judges_passages_and_the_searchs_best_beside_them():
    """ways_read: the judge alone keeps what it scores high; the fusion adds the search's best; each
    way is scored by holding_read, and the table says each way's share and default against rag@10."""
    from helpers.fakes import FakeRetriever, make_context

    from lab.many_folders.read_stage import ways_read, table

    texts = {f"p{n}": text for n, text in enumerate(["tar saves files into an archive", "report tar bugs to "
                                                     "bug-tar@gnu.org", "gzip compresses files", "tar was written by John Gilmore"])}

    class Judge:  # prefers the passage about its authors, whatever was asked
        name, threshold, selector = "fake", 0.5, None

        def score(self, question, texts):
            return [0.9 if "Gilmore" in t else 0.1 for t in texts]

    ctx = make_context(retriever=FakeRetriever(texts), pool=4, min_passages=1, max_passages=1)
    ctx.relevance = Judge()
    read = ways_read(ctx, "Where do I report tar bugs?")
    assert [p.id for p in read["judge"]] == ["p3"]
    assert [p.id for p in read["fusion"]][0] == "p3" and len(read["fusion"]) > 1
    assert read["default"] == read["fusion"]  # one question, no parts
    assert [p.id for p in read["rag@10"]] == [p.id for p in FakeRetriever(texts).search("x", 10)]
    assert [p.id for p in read["default, SmolLM2"]] == ["p3", "p0", "p1"] and len(read["default"]) == 4  # best 5 of 4
    rows = [("c", "one_fact", way, way != "judge", 2) for way in read] + \
           [("c", "two_files", way, way == "rag@10", 4) for way in read]
    out = table(rows)
    assert "| c | all | 2 | 2/2 (100%) | 1/2 (50%) | 0/2 (0%) | 1/2 (50%) | 1/2 (50%) | 1/2 (50%) | 50% |" in out
    assert "passages read, mean: rag@10 3.0, search@5 3.0" in out


def test_check_stages_relabel_an_answer_as_each_stage_would_and_replay_the_reread():
    from lab.many_folders.check_stages import Recorded, reread_line, relabelled

    record = {"id": "q", "question": "Which coreutils version is the tee manual from?", "prediction": "9.1",
              "resolved_by": "passages", "grounding": "written, not confirmed", "cited_paths": ["manuals/tee.txt"],
              "read": [{"id": "tee", "path": "manuals/tee.txt", "title": "tee", "section": "",
                        "text": "tee copies standard input. GNU coreutils 9.1 March 2022"}],
              "rereads": [{"asked": "Which coreutils version is the tee manual from?", "claim": "9.1",
                           "confirmed": False}]}
    none = frozenset()
    assert relabelled(record, "as run", none, none) is record
    assert relabelled(record, "checks: none", none, none)["grounding"] == ""
    assert relabelled(record, "word check", none, none)["grounding"] == "supported"
    replayed = relabelled(record, "word check + re-read", none, none)
    assert replayed["grounding"] == "written, not confirmed" and replayed["cited_paths"] == ["manuals/tee.txt"]
    assert Recorded([]).states("anything", "x", []) is True  # a claim not read again stands
    line = reread_line([(True, False), (True, True), (False, True), (False, False)])
    assert "refused 1/2 (50%) of the claims of right answers, confirmed 1/2 (50%)" in line


def test_the_stage_tools_say_in_one_line_that_an_index_or_run_is_missing(tmp_path):
    from lab.many_folders import check_stages, read_stage

    with pytest.raises(SystemExit, match=r"^error: no index at .*command-manuals"):
        read_stage.main(["--data-root", str(tmp_path), "--collections", "command-manuals"])
    with pytest.raises(SystemExit, match=r"^error: .*No such file"):
        check_stages.main([str(tmp_path / "no-run"), "--data-root", str(tmp_path)])
