"""Imports point down the layers (ui -> core -> indexing -> models) and never in a circle: checked
over the whole tree, and shown to catch both faults on a small fake tree."""
from pathlib import Path

from import_layers import import_circles, import_graph, service_bypasses, upward_imports

ROOT = Path(__file__).resolve().parent.parent


def test_the_tree_imports_only_down_the_layers():
    assert upward_imports(import_graph(ROOT)) == []


def test_no_two_modules_of_the_tree_import_each_other():
    assert import_circles(import_graph(ROOT)) == []


def test_front_ends_reach_the_index_and_models_only_through_the_service():
    assert service_bypasses(import_graph(ROOT)) == []


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
        "index_builder/corpus.py": "def load():\n    from assistant.evaluation import datasets\n",
        "assistant/evaluation/__init__.py": "",
        "assistant/evaluation/datasets.py": "from models.config import X\n",
        "assistant/cli/__init__.py": "",
        "assistant/cli/ask.py": "from ..evaluation import datasets\n",  # down: fine
    })
    assert upward_imports(import_graph(root)) == [  # the package's __init__ runs too
        "index_builder.corpus (indexing) -> assistant.evaluation (core)",
        "index_builder.corpus (indexing) -> assistant.evaluation.datasets (core)"]


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


def test_a_front_end_using_any_of_index_builder_or_judge_training_is_caught(tmp_path):
    root = _write(tmp_path, {
        "index_builder/sources.py": "",
        "index_builder/cluster/__init__.py": "",
        "index_builder/cluster/commands.py": "",
        "assistant/service.py": "from index_builder.sources import S\n",  # the core may
        "assistant/judge_service.py": "from .judge_training import export\n",
        "assistant/judge_training/__init__.py": "",
        "assistant/judge_training/export.py": "",
        "assistant/judge_trainingless.py": "",  # a name that only starts the same
        "assistant/cli/__init__.py": "",
        "assistant/cli/models.py": ("from .. import judge_service, judge_trainingless, service\n\n"
                                    "def export():\n    from ..judge_training.export import export_judge\n"),
        "assistant/cli/index.py": "import index_builder.cluster.commands\n",
        "tui/index_screen.py": "from index_builder import sources\n",
    })
    assert service_bypasses(import_graph(root)) == [
        "assistant.cli.index -> index_builder.cluster.commands", "assistant.cli.models -> assistant.judge_training.export",
        "tui.index_screen -> index_builder", "tui.index_screen -> index_builder.sources"]
