"""The default strategy asks one profile per kind of source (assistant/profiles/); its tuning lives
in typed settings, not in numbers written into the answer path (issue 61)."""
import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from assistant.checks import CHECKS
from assistant.checks.base import AnswerCheck
from assistant.profiles import PROFILES, profile_for
from assistant.strategies import make_strategy
from assistant.strategies.default_options import StageOptions, with_check_options
from helpers.fakes import FakeRetriever, make_context

ROOT = Path(__file__).resolve().parents[2]
ANSWER_PATH = ("answering", "grounding", "checks", "retrieval", "strategies", "folder", "profiles")
TUNING_MODULES = ("settings", "options", "config", "preset")


class FilesRetriever(FakeRetriever):
    holds_documents = True


@pytest.mark.parametrize("retriever, spec, expected", [
    (FilesRetriever({"a": "x"}), "default", "files"),
    (FilesRetriever({"a": "x"}), "default:documents=false", "pages"),
    (FakeRetriever({"a": "x"}), "default", "pages"),
    (None, "default", "pages"),
])
def test_the_profile_follows_the_sources_searched(retriever, spec, expected):
    ctx = make_context(retriever=retriever)
    assert profile_for(ctx, make_strategy(spec).opts) is PROFILES[expected]


def test_only_checks_made_for_any_documents_run_on_a_persons_files():
    suits = {check.option: (PROFILES["files"].suits(check), PROFILES["pages"].suits(check))
             for check in CHECKS}
    assert suits == {"yes_no": (True, True), "dates": (False, True), "nationality": (False, True)}


def test_a_registered_check_brings_its_own_option():
    class Rhymes(AnswerCheck):
        option, stage, mark, detail, summary, suits = "rhymes", "rhymes", "rhymes", None, "Rhymes?", "any documents"

    options = with_check_options(StageOptions, checks=(Rhymes(),))
    assert "rhymes" in {o.name for o in options.declared()}
    assert options.parse("default", {"rhymes": "false"}).rhymes is False
    assert "rhymes" not in make_strategy("default").option_names()


def test_a_profile_imported_first_loads():
    # the profiles reach RA-ISF's and ReFeed's steps in the strategies package, which imports them back
    code = "import assistant.profiles; import assistant.strategies; print(assistant.profiles.PROFILES['files'].name)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "files", done.stderr[-800:]


def numeric_literals(path: Path) -> list[int]:
    """Lines of the numbers written in a module, less 0, 1 and 2 (-1 is a minus before a 1)."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value not in (0, 1, 2)]


def test_the_answer_path_keeps_its_tuning_in_settings():
    found = {}
    for package in ANSWER_PATH:
        for path in sorted((ROOT / "assistant" / package).rglob("*.py")):
            if not any(word in path.stem for word in TUNING_MODULES):
                found.update({f"{path.relative_to(ROOT)}:{line}": 1 for line in numeric_literals(path)})
    assert len(found) <= 40, sorted(found)


def test_the_default_reads_as_its_stages_and_no_product_file_is_long():
    assert len((ROOT / "assistant/strategies/default.py").read_text().splitlines()) <= 250
    long = [str(p.relative_to(ROOT)) for folder in ("assistant", "models", "index_builder", "tui", "research")
            for p in (ROOT / folder).rglob("*.py") if (ROOT / folder).is_dir()
            and len(p.read_text().splitlines()) > 350]
    assert long == []


def test_the_runner_leaves_grounding_to_the_strategy():
    source = (ROOT / "assistant/runner.py").read_text()
    assert "grounding" not in "".join(line for line in source.splitlines() if "import" in line)
