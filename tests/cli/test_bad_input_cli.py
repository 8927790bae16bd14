"""Ordinary bad input to `ask`, `eval` and `index` ends in one clear line (`error: ...`, exit 1),
never "unexpected"; a bad record in a dataset is skipped and named, not the end of the run.

The CLI runs in-process through its real entry point (assistant.cli.main.run) with the models
replaced by fakes, so each case takes milliseconds; one case runs it in a child process, to pass
real undecodable bytes in argv."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from index_builder.store import IndexStore

from helpers.cli_run import TinyEmbedder, cli, one_error_line  # noqa: F401 (cli is a fixture)


def test_a_question_that_is_not_utf8_is_refused_before_any_model_loads(cli):
    line = one_error_line(cli("ask", "Who is Ren\udce9e?", "--strategy", "direct"))
    assert "not UTF-8 text" in line and "0xe9" in line and "character 11" in line
    assert not cli.readers  # refused before the reader loads


def test_a_non_utf8_question_in_real_argv_bytes_is_one_line(tmp_path):
    env = dict(os.environ, ASSISTANT_DATA_DIR=str(tmp_path), ASSISTANT_CONFIG=os.devnull, HF_HUB_OFFLINE="1")
    result = subprocess.run([sys.executable, "-m", "assistant", "ask", b"caf\xff?", "--strategy", "direct"],
                            env=env, capture_output=True, timeout=120)
    err = result.stderr.decode("utf-8", "replace").strip()
    assert result.returncode == 1 and len(err.splitlines()) == 1, err
    assert err.startswith("error: the question is not UTF-8 text (it holds the byte 0xff")


def test_ask_on_an_empty_index_says_so_instead_of_answering_from_nothing(cli, tmp_path):
    index = tmp_path / "index"
    IndexStore.open_or_create(index, TinyEmbedder.model_id, TinyEmbedder.dim)  # created, no passage
    for strategy in ("rag", "default"):
        line = one_error_line(cli("ask", "Who leads Project Heron?", "--index", str(index), "-s", strategy))
        assert f"the index at {index} is empty" in line and "assistant index add FOLDER" in line
    assert not cli.readers
    code, out, err = cli("ask", "Capital of France?", "--index", str(index), "--strategy", "direct")
    assert code == 0 and "Paris" in out, err  # the closed book needs no index


def test_ask_with_a_bad_config_value_is_one_line_naming_it(cli, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text("k = 0\n")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(config))
    line = one_error_line(cli("ask", "Capital of France?", "--strategy", "direct"))
    assert line == f"error: {config}: k = 0 is out of range (1-50)"
    monkeypatch.setenv("ASSISTANT_CONFIG", str(tmp_path / "missing.toml"))
    assert "which does not exist" in one_error_line(cli("ask", "Capital of France?", "--strategy", "direct"))


# -- index --------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", ["nan", "inf", "0", "-1"])
def test_index_add_with_a_max_size_that_is_no_size_is_one_line(cli, tmp_path, size):
    folder = tmp_path / "docs"
    folder.mkdir()
    line = one_error_line(cli("index", "add", str(folder), "--max-size", size))
    assert "--max-size must be a positive number of MB" in line


def test_index_dataset_of_a_folder_says_it_is_a_folder(cli, tmp_path):
    assert f"{tmp_path} is a folder; name a dataset file" in one_error_line(cli("index", "dataset", str(tmp_path)))


# -- eval ---------------------------------------------------------------------------------------

def write_jsonl(path: Path, rows: list) -> Path:
    # json.dumps writes a lone surrogate as the escape "\ud800", as a real file would hold it
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_eval_out_pointing_at_a_file_is_one_line(cli, tmp_path):
    dataset = write_jsonl(tmp_path / "tiny.jsonl", [{"question": "Capital of France?", "answer": "Paris"}])
    out = tmp_path / "results.txt"
    out.write_text("not a folder")
    line = one_error_line(cli("eval", str(dataset), "--strategy", "direct", "--out", str(out)))
    assert f"results folder {out} is a file" in line
    assert not cli.readers


def test_eval_skips_and_names_bad_records_and_answers_the_rest(cli, tmp_path):
    dataset = write_jsonl(tmp_path / "mixed.jsonl", [
        {"id": "q1", "question": "Capital of France?", "answer": "Paris"},
        {"id": "q2", "question": "Capital of \ud800?", "answer": "Rome"},  # a lone surrogate
        {"id": "q3", "question": "Capital of Spain?", "answer": "Madrid", "context": "not a list"},
        {"id": "q4", "question": "Capital of Italy?", "answer": "Rome"},
    ])
    out = tmp_path / "out"
    code, stdout, err = cli("eval", str(dataset), "--strategy", "direct", "--corpus", "none", "--out", str(out))
    assert code == 0, err
    assert "mixed.jsonl: 2 questions" in stdout and "| direct | 2 | 50.0 |" in stdout
    note = next(line for line in stdout.splitlines() if "skipped" in line)
    assert note.startswith("- 2 records of mixed.jsonl skipped: record 2: the question is not valid Unicode")
    assert "record 3: 'context' is not a list" in note
    (results,) = out.glob("direct__*.jsonl")  # named by the (bundled) reader
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(r["id"] for r in records) == ["q1", "q4"]


def test_a_dataset_whose_every_record_is_bad_is_one_line(cli, tmp_path):
    dataset = write_jsonl(tmp_path / "bad.jsonl", [{"question": "Q?", "answer": "a", "context": 7}])
    line = one_error_line(cli("eval", str(dataset), "--strategy", "direct", "--out", str(tmp_path / "out")))
    assert "bad.jsonl: the file holds no usable questions (record 1: 'context' is not a list)" in line
