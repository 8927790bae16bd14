"""The personal-documents scoring (lab/personal_scoring.py, lab/personal_eval.py --replay) on
hand-made records: each metric moves when the record it measures changes."""
import json

import pytest

from research.evaluation.personal_set import PersonalQuestion, load_personal
from lab import personal_eval
from lab.personal_scoring import alias_in, honest, presented_supported, row, rows, score
from models.errors import AssistantError

TWO_FILES = PersonalQuestion("f1", "tune", "two_files", "Bug addresses of sed and grep?",
                             [["bug-sed@gnu.org"], ["bug-grep@gnu.org"]], [["manuals/sed.txt"], ["manuals/grep.txt"]])
OPTION = PersonalQuestion("o1", "tune", "one_fact", "Which scp flag sets the port?", [["-P"]], [["manuals/pdf/scp.pdf"]])
COUNT = PersonalQuestion("c1", "tune", "folder", "How many PDFs?", [["10", "ten"]], [], expected_count=10)
NONE = PersonalQuestion("n1", "tune", "unanswerable", "Who wrote rsync?")


def record(prediction, grounding="supported", cited=(), seconds=10.0, calls=1, **extra):
    return {"id": "x", "prediction": prediction, "grounding": grounding, "cited_paths": list(cited),
            "seconds": seconds, "counts": {"reader_calls": calls}, "resolved_by": "passages", **extra}


def test_every_part_must_be_named_and_each_holding_file_cited():
    both = record("Send sed bugs to bug-sed@gnu.org and grep bugs to bug-grep@gnu.org.",
                  cited=["/home/me/docs/manuals/sed.txt", "/home/me/docs/manuals/grep.txt"])
    s = score(TWO_FILES, both, "default")
    assert (s.right, s.right_supported_cited, s.wrong_supported) == (True, True, False)
    half = score(TWO_FILES, record("bug-sed@gnu.org", cited=["/d/manuals/sed.txt"]), "default")
    assert (half.right, half.parts, half.wrong_supported) == (False, [True, False], True)
    one_file = score(TWO_FILES, {**both, "cited_paths": ["/d/manuals/sed.txt", "/d/manuals/sed.txt"]}, "default")
    assert one_file.right and not one_file.right_supported_cited
    unlabelled = score(TWO_FILES, {**both, "grounding": "not in your documents"}, "default")
    assert unlabelled.right and not unlabelled.supported and not unlabelled.right_supported_cited


def test_a_file_with_the_same_name_elsewhere_is_not_the_holding_file():
    s = score(TWO_FILES, record("bug-sed@gnu.org, bug-grep@gnu.org", cited=["/d/other/sed.txt", "/d/manuals/grep.txt"]),
              "default")
    assert s.right and not s.right_supported_cited


def test_options_match_as_written_and_words_match_whole():
    assert alias_in("-P", "Use scp -P 2222 host:file")
    assert not alias_in("-P", "Use -p to keep times")
    assert not alias_in("-P", "use --Port")
    assert alias_in("-P", "use \u2212P port") and alias_in("--raw-output", "jq \u2212\u2212raw-output")
    assert alias_in("Julian Seward", "bzip2 was written by julian  Seward.")
    assert not alias_in("10", "It holds 100 files")
    assert alias_in("bug-bc@gnu.org", "Email bug-bc@gnu.org.")
    assert alias_in("Pádraig Brady", "Padraig Brady")


def test_a_date_is_right_in_any_form():
    for said in ("Date: 2005-12-11.", "11 December 2005", "December 11, 2005", "Dec 11 2005", "11th Dec. 2005"):
        assert alias_in("11 December 2005", said), said
    assert not alias_in("11 December 2005", "2005-11-12") and not alias_in("11 December 2005", "December 2005")
    assert alias_in("2005", "11 December 2005") and not alias_in("1.4", "2005-12-11")


def test_a_count_needs_no_citation_but_must_be_right():
    assert score(COUNT, record("You have 10 PDF files."), "default").right_supported_cited
    wrong = score(COUNT, record("You have 9 PDF files."), "default")
    assert not wrong.right and wrong.wrong_supported


def test_unanswerable_honest_labels_and_words():
    for label in ("not in your documents", "from memory"):
        assert score(NONE, record("Wayne Davison", grounding=label), "default").honest
    supported = score(NONE, record("Andrew Tridgell wrote it.", cited=["/d/manuals/patch.txt"]), "default")
    assert not supported.honest and supported.wrong_supported and not supported.right
    declined = score(NONE, record("The documents do not mention who wrote rsync.", grounding="",
                                  cited=["/d/manuals/patch.txt"]), "rag")
    assert declined.honest and not declined.wrong_supported and declined.right


def test_rag_answers_that_cite_are_presented_as_supported():
    assert presented_supported(record("It is 6.", grounding="", cited=["/d/manuals/gzip.txt"]))
    assert not presented_supported(record("It is 6.", grounding="", cited=[]))
    assert not presented_supported(record("unknown", grounding="", cited=["/d/manuals/gzip.txt"]))
    assert not honest(record("unknown", grounding="supported"))


def test_rows_count_time_calls_and_shares_by_kind():
    scored = [score(OPTION, record("scp -P", cited=["/d/manuals/pdf/scp.pdf"], seconds=4, calls=1), "default"),
              score(OPTION, record("scp -p", cited=["/d/manuals/pdf/scp.pdf"], seconds=30, calls=5), "rag"),
              score(NONE, record("unknown", grounding="not in your documents", seconds=8, calls=3), "default"),
              score(NONE, record("Tridgell", grounding="", cited=["/d/x.txt"], seconds=2, calls=1), "rag")]
    table = {(r.kind, r.strategy): r for r in rows(scored, ["default", "rag"])}
    d, r = table[("all", "default")], table[("all", "rag")]
    assert (d.n, d.right, d.right_supported_cited, d.honest, d.wrong_supported) == (2, 2, 1, 1, 0)
    assert (r.right, r.wrong_supported, r.honest) == (0, 2, 0)
    assert (d.median_seconds, d.reader_calls) == (6.0, 2.0)
    assert table[("one_fact", "rag")].n == 1 and ("two_files", "rag") not in table
    assert row("all", "default", []).n == 0


def test_replay_reads_records_leaves_out_drift_and_unshared(tmp_path):
    questions = tmp_path / "q.jsonl"
    lines = [{"id": "o1", "split": "tune", "kind": "one_fact", "question": "scp port flag?", "answers": [["-P"]],
              "holding_files": [["manuals/pdf/scp.pdf"]]},
             {"id": "o2", "split": "tune", "kind": "one_fact", "question": "bc bugs?", "answers": [["bug-bc@gnu.org"]],
              "holding_files": [["manuals/bc.txt"]]},
             {"id": "o3", "split": "report", "kind": "one_fact", "question": "x?", "answers": [["y"]],
              "holding_files": [["manuals/x.txt"]]}]
    questions.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "run"
    out.mkdir()
    for strategy, answer in (("default", "-P"), ("rag", "-p")):
        recs = [{**record(answer, cited=["/d/manuals/pdf/scp.pdf"]), "id": "o1"},
                {**record("bug-bc@gnu.org", cited=["/d/manuals/bc.txt"]), "id": "o2"}]
        if strategy == "default":
            recs.append({**record("y"), "id": "o3"})
        (out / f"{strategy}__reader.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (out / "strategies.json").write_text('["default", "rag"]')
    (out / "drift.json").write_text('{"manuals/bc.txt": "text changed"}')
    text = personal_eval.report(out, questions, "tune")
    assert "1 questions answered by every strategy" in text and "flagged" in text and "o2" in text
    assert "| all | default | 1 | 1/1 (100%) |" in text and "| all | rag | 1 | 0/1 (0%) |" in text


def test_questions_file_is_checked(tmp_path):
    bad = tmp_path / "q.jsonl"
    bad.write_text(json.dumps({"id": "a", "split": "tune", "kind": "unanswerable", "question": "q?",
                               "answers": [["x"]]}) + "\n")
    with pytest.raises(AssistantError, match="unanswerable"):
        load_personal(bad)
    bad.write_text(json.dumps({"id": "a", "split": "train", "kind": "one_fact", "question": "q?", "answers": [["x"]]}))
    with pytest.raises(AssistantError, match="split"):
        load_personal(bad)


def test_the_shipped_set_is_balanced_and_a_quarter_unanswerable():
    questions = load_personal(personal_eval.QUESTIONS)
    assert len(questions) >= 80
    kinds = {q.kind for q in questions}
    for kind in kinds:
        tune = sum(q.kind == kind and q.split == "tune" for q in questions)
        report = sum(q.kind == kind and q.split == "report" for q in questions)
        assert tune == report
    assert sum(not q.answerable for q in questions) >= 0.25 * len(questions)
    assert all(q.holding_files or q.expected_count is not None for q in questions if q.answerable)


def test_kinds_take_turns_in_file_order():
    qs = [PersonalQuestion(f"{k}{i}", "tune", k, "q?", [["a"]] if k != "unanswerable" else [])
          for k in ("one_fact", "unanswerable") for i in range(3)]
    assert [q.id for q in personal_eval.by_turns(qs)] == [
        "one_fact0", "unanswerable0", "one_fact1", "unanswerable1", "one_fact2", "unanswerable2"]
