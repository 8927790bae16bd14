"""`eval --exclude FILE`: questions that also appear in another file (by id or normalised text)
are left out of a run, so a reserved file's questions are never reported on."""
import subprocess
import sys
from pathlib import Path

import pytest

from index_builder.datasets import load_dataset
from research.evaluation.question_set import QuestionSet, questions_in, without

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="shared/data is not beside the checkout")
REPO = Path(__file__).resolve().parents[2]


def write(path: Path, rows: list[str]) -> Path:
    path.write_text("".join(rows), encoding="utf-8")
    return path


def run_eval(tmp_path, *args):
    """`assistant eval` in a child process with a private data dir and no config."""
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "ASSISTANT_DATA_DIR": str(tmp_path / "data"),
           "ASSISTANT_CONFIG": "/dev/null", "HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "-m", "assistant", "eval", *map(str, args), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=120)


def test_a_question_is_left_out_by_id_or_by_its_normalised_text(tmp_path):
    run = write(tmp_path / "run.jsonl", ['{"id": "a", "question": "Who wrote Emma?", "answer": "Austen"}\n',
                                         '{"id": "b", "question": "Where is Lyon?", "answer": "France"}\n',
                                         '{"id": "c", "question": "What is 2+2?", "answer": "4"}\n'])
    held = write(tmp_path / "held.jsonl", ['{"id": "a", "question": "Something else", "answer": "x"}\n',
                                           '{"id": "zz", "question": "where is  LYON", "answer": "x"}\n'])
    kept = without(load_dataset(run), questions_in([held]))
    assert [e.id for e in kept] == ["c"]
    assert without(load_dataset(run), QuestionSet()) == load_dataset(run)


@needs_data
def test_the_musique_report_set_loses_its_reserved_questions_and_only_those():
    report = load_dataset(DATA / "musique" / "musique_ans_dev_100.kag.json")
    reserved = questions_in([DATA / "musique" / "musique_ans_dev_200.migres.jsonl"])
    kept = without(report, reserved)
    assert 50 <= len(kept) < len(report)  # "less the few questions that also appear in a reserved file"
    assert not any(e in reserved for e in kept)
    assert len(report) - len(kept) == sum(e in reserved for e in report)


def test_eval_says_in_one_line_when_exclude_leaves_nothing_or_names_a_missing_file(tmp_path):
    run = write(tmp_path / "run.jsonl", ['{"id": "a", "question": "Who wrote Emma?", "answer": "Austen"}\n'])
    for exclude, expected in [(run, "--exclude leaves no question: all 1 appear in run.jsonl"),
                              (tmp_path / "nope.jsonl", "no such dataset file")]:
        result = run_eval(tmp_path, run, "-s", "direct", "--exclude", exclude)
        assert result.returncode == 1, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], result.stderr


def test_eval_refuses_a_corpus_folder_that_holds_no_index_even_for_closed_book(tmp_path):
    """`--corpus bogus -s direct` was accepted silently: the typo surfaced only on the next run."""
    run = write(tmp_path / "run.jsonl", ['{"id": "a", "question": "Who wrote Emma?", "answer": "Austen"}\n'])
    result = run_eval(tmp_path, run, "-s", "direct", "--corpus", tmp_path / "bogus")
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "bogus" in lines[0], result.stderr
