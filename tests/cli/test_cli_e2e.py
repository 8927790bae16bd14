"""End to end as a user runs it: the real CLI, the bundled GGUF reader and MiniLM."""
import itertools
import json
import os
import subprocess
import sys

import pytest

from helpers.docs_folder import write_docs

pytestmark = pytest.mark.real_models

DOCS = {
    "heron.md": "# Project Heron\n\nProject Heron builds a solar-powered weather buoy. The project is led "
                "by the marine engineer Mira Okafor.\n",
    "garden.txt": "The community garden grows tomatoes, beans and pumpkins. Watering happens at dawn.\n",
    "trains.md": "# Night trains\n\nThe night train from Vienna to Rome leaves at nine in the evening.\n",
    "chess.md": "# Chess club\n\nThe chess club meets on Tuesdays in the library basement.\n",
}


def assistant(*args, env, timeout=300):
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    env = dict(os.environ, ASSISTANT_DATA_DIR=str(root / "data"), ASSISTANT_CONFIG=os.devnull,
               HF_HUB_OFFLINE="1")
    return env


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_docs(tmp_path_factory.mktemp("docs"), DOCS)


def one_error_line(result):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_ask_without_index_is_one_clear_line(env):
    line = one_error_line(assistant("ask", "Who leads Project Heron?", env=env))
    assert "no index" in line and "assistant index add" in line


def test_index_then_ask_cites_the_file(env, folder):
    built = assistant("index", "add", str(folder), env=env)
    assert built.returncode == 0, built.stderr
    assert "4 indexed" in built.stdout
    again = assistant("index", "add", str(folder), env=env)
    assert "0 indexed, 0 updated, 4 unchanged" in again.stdout and "0 passages written" in again.stdout

    answered = assistant("ask", "Who leads Project Heron?", "--k", "2", env=env)
    assert answered.returncode == 0, answered.stderr
    out = answered.stdout
    assert "Sources:" in out
    assert "[1] heron.md" in out.split("Sources:")[1]


def test_ask_json_shows_the_steps(env, folder):
    assistant("index", "add", str(folder), env=env)
    result = assistant("ask", "Who leads Project Heron?", "--k", "2", "--json", env=env)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "started" and types[-1] == "answer"
    answer = events[-1]
    assert set(answer["counts"]) >= {"retrievals", "sub_questions", "reader_calls"}
    assert answer["counts"]["reader_calls"] >= 1
    # a folder of the person's own: the files are read first, memory is asked only after "unknown"
    assert types.index("retrieved") < (types.index("self_knowledge") if "self_knowledge" in types else len(types))
    if "self_knowledge" in types:
        verdict = next(e for e in events if e["type"] == "self_knowledge")
        assert 0.0 <= verdict["score"] <= 1.0 and verdict["judge"]
    retrieved = next(e for e in events if e["type"] == "retrieved")
    assert retrieved["passages"][0]["path"] == "heron.md" and "score" in retrieved["passages"][0]
    # the trained judge searches again with the question and each top passage (expansions),
    # then ranks the merged pool: a verdict for each passage, best first, with its rank in the
    # merged pool (the first search's order, then each expansion's new passages)
    at = events.index(retrieved)
    searches = list(itertools.takewhile(lambda e: e["type"] == "retrieved", events[at:]))
    assert len(searches) >= 2, "no expansion search"
    verdicts = list(itertools.takewhile(lambda e: e["type"] == "relevance", events[at + len(searches):]))
    ids = list(dict.fromkeys(p["id"] for search in searches for p in search["passages"]))
    assert sorted(e["passage_id"] for e in verdicts) == sorted(ids)
    assert all(ids[e["rank_before"] - 1] == e["passage_id"] for e in verdicts)
    assert [e["rank_after"] for e in verdicts] == list(range(1, len(ids) + 1))


def test_bad_input_is_one_clear_line(env, folder, tmp_path):
    assert "empty" in one_error_line(assistant("ask", "   ", env=env))
    missing = tmp_path / "nope.gguf"
    line = one_error_line(assistant("ask", "Hi?", "--strategy", "direct", "--reader", str(missing), env=env))
    assert str(missing) in line
    notgguf = tmp_path / "fake.gguf"
    notgguf.write_text("hello")
    assert "not a GGUF" in one_error_line(assistant("ask", "Hi?", "--reader", str(notgguf), "--strategy",
                                                    "direct", env=env))
    assert "unknown strategy" in one_error_line(assistant("ask", "Hi?", "--strategy", "magic", env=env))
    assert "no such folder" in one_error_line(assistant("index", "add", str(tmp_path / "missing"), env=env))


def test_direct_strategy_needs_no_index(tmp_path):
    env = dict(os.environ, ASSISTANT_DATA_DIR=str(tmp_path / "empty"), ASSISTANT_CONFIG=os.devnull)
    result = assistant("ask", "What is the capital of France?", "--strategy", "direct", env=env)
    assert result.returncode == 0, result.stderr
    assert "from the reader's own knowledge" in result.stdout  # resolved closed-book, in words
