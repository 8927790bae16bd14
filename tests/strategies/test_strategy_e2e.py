"""The strategies end to end with the bundled reader and embedder on a tiny indexed folder.

Small options keep the run short; the assertions are about structure (steps, citations,
counts), not about what a 135M reader answers. `direct` is covered by test_cli_e2e.py.
The CLI runs in-process here so that it shares the models this module already loaded.
"""
import json
import os

import pytest
from typer.testing import CliRunner

from assistant.events.event_json import event_from_dict
from assistant.events.core import Answer, Detail, Draft, Note, Relevance, Retrieved, Token
from assistant.runner import build_context, run_question
from assistant.strategies import make_strategy
from models.config import Settings

from helpers.docs_folder import write_docs

pytestmark = pytest.mark.real_models

DOCS = {
    "heron.md": "# Project Heron\n\nProject Heron builds a solar-powered weather buoy. It is led by the marine "
                "engineer Mira Okafor.\n",
    "okafor.txt": "Mira Okafor was born in Lagos, Nigeria. She studied engineering in Delft.\n",
    "garden.txt": "The community garden grows tomatoes, beans and pumpkins. Watering happens at dawn.\n",
}
QUESTION = "Where was the leader of Project Heron born?"


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore
    from models import registry

    root = tmp_path_factory.mktemp("strategies")
    folder = write_docs(root / "docs", DOCS)
    settings = Settings(data_dir=root / "data", k=2, depth=1, max_answer_tokens=24, max_reader_calls=20)
    embedder = registry.get_embedder(settings)
    store = IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim)
    index_folder(store, embedder, folder)
    return settings


def run(spec, settings):
    strategy = make_strategy(spec)
    events = list(run_question(QUESTION, strategy, build_context(settings, strategy)))
    for event in events:
        assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event
    answer = events[-1]
    assert isinstance(answer, Answer) and answer.counts["reader_calls"] >= 1
    assert set(answer.counts) >= {"reader_calls", "prompt_tokens", "evaluated_tokens", "completion_tokens"}
    return events, answer


def details(events, kind):
    return [e for e in events if isinstance(e, Detail) and e.kind == kind]


@pytest.mark.parametrize("spec", ["rag", "ra-isf:decomposition=false"])
def test_retrieval_baselines_cite_what_they_retrieved(spec, settings):
    events, answer = run(spec, settings)
    retrieved = [p.id for e in events if isinstance(e, Retrieved) for p in e.passages]
    assert set(answer.passages_read) <= set(retrieved)
    assert [d for d in events if isinstance(d, Draft)][-1].text == answer.text
    if spec == "rag":
        assert answer.passages_read == retrieved and len(retrieved) == 2
    elif answer.resolved_by != "self-knowledge":  # every retrieved passage was judged, once
        # (the selector's expansion searches find some of the first search's passages again)
        assert sorted(e.passage_id for e in events if isinstance(e, Relevance)) == sorted(set(retrieved))


def test_refeed(settings):
    events, answer = run("refeed:drafts=2", settings)
    drafts = details(events, "refeed.drafts")[0].data["drafts"]
    assert len(drafts) == 2
    assert details(events, "refeed.feedback") and details(events, "refeed.decision")
    queries = [r.query for r in events if isinstance(r, Retrieved)]  # question + each distinct draft
    assert 1 <= len(queries) <= 2 and set(queries) <= {f"{QUESTION} {d['text']}".strip() for d in drafts}
    decision = details(events, "refeed.decision")[0].data
    assert answer.text == (decision["refined"] if decision["kept"] == "refined" else decision["draft"])["text"]


def test_rq_rag(settings):
    events, answer = run("rq-rag:depth=1,actions=rewrite+decompose,docs=1,search=always", settings)
    trajectories = details(events, "rq-rag.trajectory")
    assert len(trajectories) == 2 and sum(t.data["chosen"] for t in trajectories) == 1
    chosen = next(t for t in trajectories if t.data["chosen"]).data
    assert answer.text == chosen["answer"] and answer.passages_read == chosen["passages"]
    # the prompts of the two actions share the question prefix: the second evaluates less
    assert answer.counts["evaluated_tokens"] < answer.counts["prompt_tokens"]


def test_llmqa(settings):
    events, answer = run("llmqa:expansions=2,candidates=3,window=2,step=1", settings)
    rerank = details(events, "llmqa.rerank")[0].data
    assert sorted(rerank["after"]) == sorted(rerank["before"]) and len(rerank["windows"]) == 2
    assert answer.passages_read == rerank["kept"] and len(rerank["kept"]) == 1
    assert details(events, "llmqa.expansion")[0].data["by"] == "similarity to the question"


def test_default_pipeline_streams_and_shows_its_stages(settings):
    # the pipeline as on a dump or a dataset: on a folder (documents mode) ReFeed runs only for a
    # draft its passages do not state (tests/grounding/test_documents_mode.py)
    events, answer = run("default:documents=false", settings)
    stages = [d.data for d in details(events, "pipeline.stage")]
    assert [s["stage"] for s in stages] == list(range(1, len(stages) + 1))
    modules = [s["module"] for s in stages]
    # the gate, the judged look-up, the hop only when the support is short, ReFeed's check last
    assert modules[:2] == ["self-knowledge", "retrieve"] and modules[-1] == "refeed", modules
    assert set(modules[2:-1]) <= {"hop", "multi-hop answer"}
    assert any(isinstance(e, Token) for e in events)
    refined = [d for d in events if isinstance(d, Draft) and d.basis == "refinement"]
    unchanged = [n for n in events if isinstance(n, Note) and "had not read" in n.message]
    assert refined or unchanged  # ReFeed either refined or said why it did not


def test_ask_cli_maps_refeed_flags(settings, monkeypatch):
    from assistant.cli.main import app

    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("ASSISTANT_CONFIG", os.devnull)
    monkeypatch.setenv("ASSISTANT_MAX_ANSWER_TOKENS", "24")
    result = CliRunner().invoke(app, ["ask", QUESTION, "--strategy", "refeed", "--drafts", "1", "--no-ensemble",
                                      "--k", "2", "--json"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["options"] == {"drafts": "1", "ensemble": "false"}
    decision = next(e for e in events if e.get("kind") == "refeed.decision")
    assert decision["data"]["kept"] == "refined" and decision["data"]["ensemble"] is False
