"""Imports point down the layers (tests -> lab and benchmarks -> ui -> research -> core -> indexing -> models)
and never in a circle: checked over the whole tree, and shown to catch each fault on a small fake tree."""
from pathlib import Path

from helpers.import_layers import (core_upward_imports, foreign_library_imports, import_circles, import_graph,
                                   service_bypasses, upward_imports)

ROOT = Path(__file__).resolve().parent.parent


def test_the_tree_imports_only_down_the_layers():
    assert upward_imports(import_graph(ROOT)) == []


def test_no_two_modules_of_the_tree_import_each_other():
    assert import_circles(import_graph(ROOT)) == []


def test_front_ends_reach_the_index_and_models_only_through_the_service():
    assert service_bypasses(import_graph(ROOT)) == []


def test_each_front_end_library_is_known_by_its_front_end_alone():
    assert foreign_library_imports(ROOT) == []


def test_a_front_end_library_imported_elsewhere_is_caught(tmp_path):
    root = _write(tmp_path, {
        "assistant/server/__init__.py": "", "assistant/server/app.py": "import fastapi\nfrom uvicorn import run\n",
        "assistant/mcp_server/__init__.py": "", "assistant/mcp_server/server.py": "from mcp.server import X\n",
        "assistant/service.py": "def serve():\n    from fastapi import FastAPI\n",
        "assistant/mcp_server/web.py": "import starlette.routing\n",
        "tui/app.py": "import typer\n",
    })
    assert foreign_library_imports(root) == ["assistant.mcp_server.web -> starlette", "assistant.service -> fastapi",
                                             "tui.app -> typer"]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for package in ("assistant", "tui", "index_builder", "models"):
        (root / package).mkdir(exist_ok=True)
        (root / package / "__init__.py").touch()
    return root


def test_an_upward_import_is_caught_even_inside_a_function(tmp_path):
    root = _write(tmp_path, {
        "models/config.py": "X = 1\n",
        "index_builder/corpus.py": "def load():\n    from assistant.folder import asks\n",
        "assistant/folder/__init__.py": "",
        "assistant/folder/asks.py": "from models.config import X\n",
        "assistant/cli/__init__.py": "",
        "assistant/cli/ask.py": "from ..folder import asks\n",  # down: fine
    })
    assert upward_imports(import_graph(root)) == [  # the package's __init__ runs too
        "index_builder.corpus (indexing) -> assistant.folder (core)",
        "index_builder.corpus (indexing) -> assistant.folder.asks (core)"]


def test_the_answer_path_loading_research_or_research_loading_a_front_end_is_caught(tmp_path):
    root = _write(tmp_path, {
        "research/__init__.py": "",
        "research/evaluation/__init__.py": "",
        "research/evaluation/support.py": "from assistant.events.core import Passage\n",  # down: fine
        "research/evaluation/report.py": "def show():\n    from assistant.presentation.step_text import x\n",
        "research/judge_service.py": "def train():\n    from .judge_training import pipeline\n",  # fine
        "research/judge_training/__init__.py": "",
        "research/judge_training/pipeline.py": "from index_builder.datasets import load_dataset\n",  # fine
        "index_builder/datasets.py": "",
        "assistant/events/__init__.py": "",
        "assistant/events/core.py": "",
        "assistant/presentation/__init__.py": "",
        "assistant/presentation/step_text.py": "from ..events.core import Passage\n",  # ui -> core: fine
        "assistant/services/__init__.py": "",
        "assistant/services/judges.py": "def train():\n    from research.judge_training import pipeline\n",
        "assistant/runner.py": "from research.evaluation.support import hider\n",
        "assistant/cli/__init__.py": "",
        "assistant/cli/judge.py": "def train():\n    from research import judge_service\n",  # ui -> research: fine
    })
    assert upward_imports(import_graph(root)) == [
        "assistant.runner (core) -> research.evaluation.support (research)",
        "assistant.services.judges (core) -> research.judge_training (research)",
        "assistant.services.judges (core) -> research.judge_training.pipeline (research)",
        "research.evaluation.report (research) -> assistant.presentation.step_text (ui)"]


def test_modules_that_import_each_other_are_caught(tmp_path):
    root = _write(tmp_path, {
        "models/registry.py": "def judge():\n    from .judge_t5 import load\n",
        "models/judge_t5.py": "from .registry import shared\n",
        "models/a.py": "from . import b\n",
        "models/b.py": "from models import c\n",
        "models/c.py": "import models.a\n",
        "models/pkg/__init__.py": "from .part import X\n",  # a package and its own part: one unit
        "models/pkg/part.py": "from . import helper\nX = 1\n",
        "models/pkg/helper.py": "",
    })
    assert import_circles(import_graph(root)) == [["models.a", "models.b", "models.c"],
                                                  ["models.judge_t5", "models.registry"]]


def test_a_front_end_opening_the_store_itself_is_caught(tmp_path):
    root = _write(tmp_path, {
        "index_builder/store.py": "",
        "index_builder/names.py": "",
        "tui/backend.py": "from index_builder.names import x\n\ndef info():\n    from index_builder.store import IndexStore\n",
    })
    assert service_bypasses(import_graph(root)) == ["tui.backend -> index_builder.names",
                                                    "tui.backend -> index_builder.store"]


def test_inside_the_core_imports_point_down_too():
    assert core_upward_imports(import_graph(ROOT)) == []


def test_a_step_importing_a_strategy_or_a_strategy_importing_the_runner_is_caught(tmp_path):
    root = _write(tmp_path, {
        "assistant/answering/__init__.py": "",
        "assistant/answering/hops.py": "def run():\n    from ..strategies.base import generate_answer\n",
        "assistant/strategies/__init__.py": "",
        "assistant/strategies/base.py": "from ..answering.generate import generate_answer\n",  # down: fine
        "assistant/strategies/refeed.py": "from ..runner import run_question\n",
        "assistant/runner.py": "from .answering.answer_norm import normalize\n",  # down: fine
        "assistant/answering/generate.py": "",
        "assistant/answering/answer_norm.py": "",
    })
    found = core_upward_imports(import_graph(root))
    assert "assistant.answering.hops -> assistant.strategies.base" in found
    assert "assistant.strategies.refeed -> assistant.runner" in found
    assert not [line for line in found if "generate" in line or "answer_norm" in line]


def test_the_product_importing_lab_benchmarks_or_tests_is_caught(tmp_path):
    root = _write(tmp_path, {
        "lab/__init__.py": "",
        "lab/replay.py": "from assistant.retrieval.rerank import judge_pool\n",  # lab uses the product: fine
        "benchmarks/bench_support.py": "",
        "tests/fakes.py": "",
        "tests/test_replay.py": "from lab import replay\nfrom fakes import X\n",  # tests use both: fine
        "assistant/retrieval/rerank.py": "from lab.replay import Replay\n",
        "models/reader.py": "def fake():\n    from fakes import FakeReader\n",  # tests/ on sys.path
        "tui/app.py": "import benchmarks.bench_support\n",
    })
    assert upward_imports(import_graph(root)) == [
        "assistant.retrieval.rerank (core) -> lab.replay (lab)",
        "models.reader (models) -> tests.fakes (tests)",
        "tui.app (ui) -> benchmarks.bench_support (lab)"]


def test_lab_or_a_benchmark_importing_tests_is_caught(tmp_path):
    root = _write(tmp_path, {
        "lab/__init__.py": "",
        "lab/sweep.py": "import test_formats as formats\n",  # tests/ put on sys.path by hand
        "benchmarks/bench_support.py": "",
        "benchmarks/bench_judge.py": "from bench_support import x\n\ndef run():\n    from helpers.t5 import tok\n",
        "tests/test_formats.py": "",
        "tests/helpers/__init__.py": "",
        "tests/helpers/t5.py": "",
    })
    assert upward_imports(import_graph(root)) == [
        "benchmarks.bench_judge (lab) -> tests.helpers.t5 (tests)",
        "lab.sweep (lab) -> tests.test_formats (tests)"]


def test_a_circle_among_lab_scripts_or_test_helpers_is_caught(tmp_path):
    root = _write(tmp_path, {
        "lab/__init__.py": "",
        "lab/hostile/__init__.py": "",
        "lab/hostile/sweep.py": "from hostile_cases import CASES\n",  # run as a script: its folder on sys.path
        "lab/hostile/hostile_cases.py": "def run():\n    from lab.hostile import sweep\n",
        "benchmarks/bench_a.py": "import bench_b\n",
        "benchmarks/bench_b.py": "import bench_a\n",
        "tests/helpers/__init__.py": "",
        "tests/helpers/one.py": "from helpers.two import x\n",
        "tests/helpers/two.py": "from helpers import one\n",
    })
    assert import_circles(import_graph(root)) == [["benchmarks.bench_a", "benchmarks.bench_b"],
                                                  ["lab.hostile.hostile_cases", "lab.hostile.sweep"],
                                                  ["tests.helpers.one", "tests.helpers.two"]]


def test_a_front_end_using_any_of_index_builder_or_judge_training_is_caught(tmp_path):
    root = _write(tmp_path, {
        "index_builder/sources.py": "",
        "index_builder/cluster/__init__.py": "",
        "index_builder/cluster/commands.py": "",
        "assistant/service.py": "from index_builder.sources import S\n",  # the core may
        "research/__init__.py": "",
        "research/judge_service.py": "from .judge_training import export\n",
        "research/judge_training/__init__.py": "",
        "research/judge_training/export.py": "",
        "research/judge_trainingless.py": "",  # a name that only starts the same
        "assistant/cli/__init__.py": "",
        "assistant/cli/models.py": ("from research import judge_service, judge_trainingless\nfrom .. import service\n\n"
                                    "def export():\n    from research.judge_training.export import export_judge\n"),
        "assistant/cli/index.py": "import index_builder.cluster.commands\n",
        "tui/index_screen.py": "from index_builder import sources\n",
    })
    assert service_bypasses(import_graph(root)) == [
        "assistant.cli.index -> index_builder.cluster.commands", "assistant.cli.models -> research.judge_training.export",
        "tui.index_screen -> index_builder", "tui.index_screen -> index_builder.sources"]
