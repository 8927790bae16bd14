"""Cold start: commands that need no model, and `ask`/`chat` answered by a running server, never
import the heavy libraries (torch, transformers, LanceDB, llama.cpp, onnxruntime, Textual, the
server's FastAPI). Each command runs in a fresh interpreter that reports what it imported, so a
future eager import anywhere on these paths fails here."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.fakes import FakeReader, make_context
from helpers.import_layers import import_graph
from helpers.live_server import live_server

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "sentence_transformers", "transformers", "lancedb", "pyarrow", "llama_cpp", "onnxruntime",
         "tokenizers", "textual", "fastapi", "uvicorn", "starlette", "httpx")
# Runs the real entry point, then writes which HEAVY modules the command left imported.
PROBE = """
import json, os, sys
from assistant.cli.main import run
heavy = json.loads(os.environ["PROBE_HEAVY"])
try:
    run()
finally:
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump(sorted(name for name in heavy if name in sys.modules), out)
"""
QUESTION = "What is the capital?"


def imported_by(tmp_path, data: Path, *args: str, stdin: str = "") -> tuple[subprocess.CompletedProcess, list]:
    """(the finished command, the heavy modules it imported)."""
    out = tmp_path / "imported.json"
    out.unlink(missing_ok=True)
    env = {name: value for name, value in os.environ.items() if not name.startswith("ASSISTANT_")}
    env.update(ASSISTANT_DATA_DIR=str(data), ASSISTANT_CONFIG=os.devnull, PYTHONPATH=str(ROOT),
               HF_HUB_OFFLINE="1", PROBE_OUT=str(out), PROBE_HEAVY=json.dumps(HEAVY))
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, input=stdin, capture_output=True,
                          text=True, timeout=120)
    return done, json.loads(out.read_text())


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A data folder whose server.json names a running server (fake models) over its index."""
    from models.config import Settings

    data = tmp_path_factory.mktemp("served") / "data"
    data.mkdir()
    reader = FakeReader(lambda prompt: "from the server")
    with live_server(lambda settings, strategy: make_context(reader=reader), data) as url:
        index = Settings(data_dir=data).index_path
        (data / "server.json").write_text(json.dumps({"url": url, "pid": 0, "index": str(index)}))
        yield data


@pytest.mark.parametrize("args", [
    ("--help",), ("ask", "--help"), ("chat", "--help"), ("index", "--help"), ("serve", "--help"),
    ("chat", "--list"), ("models", "list"), ("search", "--help"), ("mcp", "--help"),
])
def test_commands_without_models_import_no_heavy_library(tmp_path, args):
    done, heavy = imported_by(tmp_path, tmp_path / "data", *args)
    assert done.returncode == 0, done.stderr
    assert heavy == [], f"`assistant {' '.join(args)}` imported {heavy}"


def test_ask_through_a_running_server_imports_no_heavy_library(tmp_path, served):
    done, heavy = imported_by(tmp_path, served, "ask", QUESTION, "-s", "direct")
    assert done.returncode == 0 and "from the server" in done.stdout, done.stderr
    assert heavy == [], f"`assistant ask` through the server imported {heavy}"


def test_chat_through_a_running_server_imports_no_heavy_library(tmp_path, served):
    done, heavy = imported_by(tmp_path, served, "chat", "-s", "direct", stdin=QUESTION + "\n")
    assert done.returncode == 0 and "from the server" in done.stdout, done.stderr
    assert heavy == [], f"`assistant chat` through the server imported {heavy}"


def test_the_probe_sees_what_a_command_that_opens_the_index_imports(tmp_path):
    # in this process: the index is opened (and found missing) before any model loads
    done, heavy = imported_by(tmp_path, tmp_path / "data", "ask", QUESTION, "-s", "rag", "--local")
    assert done.returncode == 1 and done.stderr.startswith("error: "), done.stderr
    assert "pyarrow" in heavy  # the store's tables


ANSWER_PATH = ("assistant.service", "assistant.runner", "assistant.strategies.default")


def _research(names) -> list[str]:
    """The evaluation and judge-training modules among `names`."""
    return sorted(name for name in names if name.split(".")[0] == "research"
                  or {"evaluation", "judge_training", "judge_service"} & set(name.split(".")))


def test_the_answer_path_loads_no_evaluation_or_training_code():
    # The service, the runner and the default strategy: what `ask`, `chat`, `serve` and the app
    # load. Evaluation and judge training (research/) come only with `assistant eval` / `judge`.
    probe = f"import json, sys\nimport {', '.join(ANSWER_PATH)}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert set(ANSWER_PATH) <= set(loaded) and _research(loaded) == []
    # nor later, on any path a question or an index command may take (lazy imports included)
    graph = import_graph(ROOT)
    reachable, todo = set(), list(ANSWER_PATH)
    while todo:
        module = todo.pop()
        if module not in reachable:
            reachable.add(module)
            todo += graph.get(module, ())
    assert "index_builder.dataset_corpus" in reachable and _research(reachable) == []
