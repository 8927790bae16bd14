"""A question loads only what its strategy uses: plain rag neither the relevance judge nor the
judge; a strategy that asks the judge loads it when it first does."""
import pytest
from helpers.cli_run import cli  # noqa: F401  (the fixture)
from helpers.docs_folder import write_docs

from assistant.runner import OnFirstUse


@pytest.fixture
def indexed(cli, tmp_path):
    folder = write_docs(tmp_path / "docs", {"paris.txt": "Paris is the capital of France."})
    code, _out, err = cli("index", "add", str(folder))
    assert code == 0, err
    return cli


def refused(what):
    def load(settings):
        raise AssertionError(f"the {what} was loaded")
    return load


def test_rag_loads_neither_judge(indexed, monkeypatch):
    from models import registry

    monkeypatch.setattr(registry, "get_relevance_judge", refused("relevance judge"))
    monkeypatch.setattr(registry, "get_judge", refused("judge"))
    code, out, err = indexed("ask", "What is the capital of France?", "-s", "rag")
    assert code == 0 and "Paris" in out, err


def test_a_strategy_that_asks_the_judge_still_gets_it(indexed, monkeypatch):
    from models import registry

    monkeypatch.setattr(registry, "get_judge", refused("judge"))
    code, _out, err = indexed("ask", "What is the capital of France?", "-s", "ra-isf:relevance=false")
    assert code != 0 and "the judge was loaded" in err


def test_a_model_loaded_on_first_use_loads_once():
    loads = []
    model = OnFirstUse(lambda: loads.append(1) or type("Judge", (), {"name": "fake", "decompose": len})())
    assert loads == []
    assert model.name == "fake" and model.decompose("ab") == 2 and loads == [1]
