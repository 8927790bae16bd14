"""The T5 judge through the real CLI: export-judge, models list, ask --judge t5 --json with the tiny
trained judge (reader: the bundled SmolLM2), judge train and distill, and one clear error line
for every bad input."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from research.judge_training.data import read_examples
from models.judges.t5_onnx import DECODER

from lab.fixtures import t5_tiny
from helpers.docs_folder import write_docs

pytestmark = pytest.mark.real_models

MUSIQUE = Path(__file__).resolve().parents[3] / "shared" / "data" / "musique" / "musique_ans_dev_100.kag.json"
DOCS = {"founding.txt": t5_tiny.relevant_passage("Hugo") + "\n",
        "river.txt": t5_tiny.irrelevant_passage("Chile") + "\n"}


def assistant(*args, env, timeout=300):
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def one_error_line(result) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    return t5_tiny.trained_judge(tmp_path_factory.getbasetemp() / "tiny-t5")


@pytest.fixture
def env(tmp_path):
    (tmp_path / "config.toml").touch()  # a config file named by ASSISTANT_CONFIG must exist
    # One torch/onnxruntime thread: the models here are tiny and the CI machine has 2 cores.
    return dict(os.environ, ASSISTANT_DATA_DIR=str(tmp_path / "data"), ASSISTANT_CONFIG=str(tmp_path / "config.toml"),
                HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1", ASSISTANT_N_THREADS="1")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A data dir whose index holds one founding passage and one river passage."""
    root = tmp_path_factory.mktemp("judge-cli")
    docs = write_docs(root / "docs", DOCS)
    env = dict(os.environ, ASSISTANT_DATA_DIR=str(root / "data"), ASSISTANT_CONFIG=os.devnull,
               HF_HUB_OFFLINE="1")
    built = assistant("index", "add", str(docs), env=env)
    assert built.returncode == 0, built.stderr
    return env


def test_export_judge_int8_registers_it_and_models_list_shows_it(tiny, env, tmp_path):
    out = tmp_path / "judge"
    exported = assistant("models", "export-judge", str(tiny.checkpoint), "--int8", "--out", str(out), env=env)
    assert exported.returncode == 0, exported.stderr
    assert "exported int8 judge" in exported.stdout and not exported.stderr.strip()
    config = Path(env["ASSISTANT_CONFIG"]).read_text()
    assert 'judge = "t5"' in config and f'judge_path = "{out.resolve()}"' in config

    listed = assistant("models", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    judge = listed.stdout.split("\njudge", 1)[1]
    assert judge.startswith(f"     T5 ({out.name})") and "onnxruntime int8" in judge
    assert str(out.resolve()) in judge and str(tiny.checkpoint.resolve()) in judge  # file, source
    assert "device     cpu" in judge and "know 0.500, relevance 0.500" in judge
    assert "reader" in listed.stdout and "llama.cpp" in listed.stdout and "embedder" in listed.stdout


def test_ask_with_the_t5_judge_reports_backend_device_and_scores(tiny, indexed):
    # the T5 judges relevance too (the default relevance judge is the trained selector)
    env = dict(indexed, ASSISTANT_JUDGE_PATH=str(tiny.int8), OMP_NUM_THREADS="1", ASSISTANT_RELEVANCE_JUDGE="judge")
    result = assistant("ask", t5_tiny.company_question("Anna"), "--judge", "t5", "--k", "2",
                       "--strategy", "ra-isf", "--json", env=env)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    knows = next(e for e in events if e["type"] == "self_knowledge")
    assert knows["judge"] == "t5-onnx-int8/cpu" and not knows["knows"] and knows["score"] < 0.2
    paths = {p["id"]: p["path"] for p in next(e for e in events if e["type"] == "retrieved")["passages"]}
    verdicts = {paths[e["passage_id"]]: e for e in events if e["type"] == "relevance"}
    assert set(verdicts) == set(DOCS)
    assert all(e["judge"] == "t5-onnx-int8/cpu" for e in verdicts.values())
    assert verdicts["founding.txt"]["relevant"] and verdicts["founding.txt"]["score"] > 0.8
    assert not verdicts["river.txt"]["relevant"] and verdicts["river.txt"]["score"] < 0.2
    answer = events[-1]
    assert answer["type"] == "answer" and [paths[i] for i in answer["passages_read"]] == ["founding.txt"]
    assert {c["path"] for c in answer["citations"]} <= {"founding.txt"}  # cited: only what was read


def test_missing_or_corrupt_judge_folder_is_one_error_line(tiny, indexed, tmp_path):
    ask = ("ask", "Who founded it?", "--judge", "t5", "--strategy", "ra-isf")
    missing = tmp_path / "no-judge"
    line = one_error_line(assistant(*ask, env=dict(indexed, ASSISTANT_JUDGE_PATH=str(missing))))
    assert str(missing) in line and "export-judge" in line

    corrupt = tmp_path / "corrupt"
    shutil.copytree(tiny.int8, corrupt)
    data = (corrupt / DECODER).read_bytes()
    (corrupt / DECODER).write_bytes(data[: len(data) // 2])
    line = one_error_line(assistant(*ask, env=dict(indexed, ASSISTANT_JUDGE_PATH=str(corrupt))))
    assert "damaged" in line and str(corrupt) in line

    listed = assistant("models", "list", env=dict(indexed, ASSISTANT_JUDGE="t5",
                                                  ASSISTANT_JUDGE_PATH=str(missing)))
    assert listed.returncode == 0 and "judge     missing:" in listed.stdout


def test_export_judge_bad_checkpoint_is_one_error_line(env, tmp_path):
    assert "no such checkpoint" in one_error_line(assistant("models", "export-judge", str(tmp_path / "x"), env=env))
    llama = tmp_path / "llama"
    llama.mkdir()
    (llama / "config.json").write_text(json.dumps({"model_type": "llama"}))
    assert "needs a T5" in one_error_line(assistant("models", "export-judge", str(llama), env=env))


def test_judge_train_cli_fine_tunes_exports_calibrates_and_registers(tiny, env, tmp_path):
    out = tmp_path / "trained"
    result = assistant("judge", "train", str(tiny.data), "--base", str(tiny.base), "--epochs", "1", "--int8",
                       "--out", str(out), env=env)
    assert result.returncode == 0, result.stderr
    assert "trained on" in result.stdout and "held-out accuracy" in result.stdout
    assert f"judge: {out}" in result.stdout and "registered as the judge" in result.stdout
    assert (out / DECODER).is_file() and json.loads((out / "judge.json").read_text())["int8"] is True

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task": "knows", "question": "Q?", "target": "maybe"}) + "\n")
    line = one_error_line(assistant("judge", "train", str(bad), "--base", str(tiny.base), env=env))
    assert "bad.jsonl line 1" in line


@pytest.mark.skipif(not MUSIQUE.is_file(), reason="shared/data is not beside the checkout")
def test_judge_distill_labels_musique_with_the_bundled_reader(env, tmp_path):
    out = tmp_path / "distilled.jsonl"
    result = assistant("judge", "distill", str(MUSIQUE), "--limit", "2", "--out", str(out), env=env)
    assert result.returncode == 0, result.stderr
    assert "from 2 questions" in result.stdout
    examples = read_examples(out)  # the training format, validated line by line
    tasks = [e.task for e in examples]
    assert tasks.count("knows") == 2 and "relevance" in tasks and "decompose" in tasks
    relevance = [e for e in examples if e.task == "relevance"]
    assert {e.target for e in relevance} == {"relevance", "irrelevance"}
    assert all(e.source == "dataset" for e in relevance)
    assert not out.with_name(out.name + ".partial").exists()

    assert "no such" in one_error_line(assistant("judge", "distill", str(tmp_path / "none.json"), "--out",
                                                 str(out), env=env)).lower()
