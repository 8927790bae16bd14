"""default:chain=true: the read set picked hop by hop with the judge folder's chain scorer, found by
a hop search (no reader call), in hop order in the prompt, and said in the trace."""
import json
import shutil
from pathlib import Path

import pytest
from helpers.fakes import FakeJudge, FakeReader, make_context

from assistant.retrieval.chain_select import CHAIN_FEATURES
from assistant.events.details import ChainSelected
from assistant.events.event_json import event_from_dict
from assistant.events.core import Passage, Retrieved
from assistant.retrieval.pool_features import FEATURES
from assistant.runner import run_question
from assistant.presentation.step_text import StepNarrator
from models.judges.relevance import SETTINGS_FILE, RelevanceJudge, shipped_judge_path

QUESTION = "Who was the first president of the publisher of Journal of Psychotherapy Integration?"
FIRST = Passage(id="a", title="Journal of Psychotherapy Integration",
                text="Journal of Psychotherapy Integration is a journal published by the American Psychological "
                     "Association.")
BRIDGE = Passage(id="b", title="American Psychological Association",
                 text="The association was founded in 1892. G. Stanley Hall was elected as its first leader.")
DISTRACTOR = Passage(id="c", title="Journal of Mathematical Physics",
                     text="Journal of Mathematical Physics is a journal; its first editor was a physicist.")
OTHER = Passage(id="d", title="Integration", text="Integration is a topic of calculus and of first courses.")


class HopRetriever:
    """The question finds the first hop and distractors; a query naming the association finds the bridge."""

    embedder = None

    def __init__(self):
        self.queries = []

    def search(self, query, k):
        self.queries.append(query)
        found = [BRIDGE, OTHER] if "Psychological Association" in query else [FIRST, DISTRACTOR, OTHER]
        return found[:k]

    def similarity(self, query, texts):
        return None


def tree(feature, value):
    return {"feature": [CHAIN_FEATURES.index(feature), -2, -2], "threshold": [0.5, 0, 0],
            "left": [1, -1, -1], "right": [2, -1, -1], "value": [0, 0.0, value]}


@pytest.fixture
def judge_folder(tmp_path):
    """The shipped judge with hand-made trees: a selector that ranks the passage whose title the
    question names first (no expansion searches), and a chain scorer that takes the selector's top
    passage first, then a passage a kept one names; below 0.5 the chain is complete."""
    folder = Path(shutil.copytree(shipped_judge_path(), tmp_path / "judge"))
    selector_tree = dict(tree("title_named_by_kept", 3.0), feature=[FEATURES.index("title_in_question"), -2, -2])
    selector = {"features": list(FEATURES), "threshold": 0.5, "expansions": 0, "expansion_depth": 5,
                "stages": [{"init": 0.0, "learning_rate": 1.0, "max_depth": 1, "trees": [selector_tree]}]}
    (folder / "selector.json").write_text(json.dumps(selector), encoding="utf-8")
    spec = {"features": list(CHAIN_FEATURES), "stop": 0.5, "max_hops": 3, "search_depth": 5,
            "model": {"init": -2.0, "learning_rate": 1.0,
                      "trees": [tree("title_named_by_kept", 6.0), tree("selector_rank_inv", 4.0)]}}
    (folder / "chain.json").write_text(json.dumps(spec), encoding="utf-8")
    settings = json.loads((folder / SETTINGS_FILE).read_text(encoding="utf-8"))
    settings["chain"] = "chain.json"
    (folder / SETTINGS_FILE).write_text(json.dumps(settings), encoding="utf-8")
    return folder


def run(folder, chain: bool, hop: str = "never"):
    prompts = []

    def answer(prompt):
        prompts.append(prompt)
        return "G. Stanley Hall"

    subs = {QUESTION: ["Who publishes Journal of Psychotherapy Integration?", "Who was that publisher's first leader?"]}
    ctx = make_context(reader=FakeReader(answer), judge=FakeJudge(decompose=subs), retriever=HopRetriever(),
                       pool=3, max_passages=2, min_passages=2)
    ctx.relevance = RelevanceJudge(folder, n_threads=1)
    spec = f"default:self_knowledge=false,hop={hop},refine=false,ground=false,chain={str(chain).lower()}"
    return list(run_question(QUESTION, spec, ctx)), prompts, ctx.retriever


def test_the_chain_reads_the_bridge_a_hop_search_found_in_hop_order(judge_folder):
    events, prompts, retriever = run(judge_folder, chain=True)
    chains = [e for e in events if isinstance(e, ChainSelected)]
    assert len(chains) == 1
    assert [h.id for h in chains[0].hops] == ["a", "b"]
    assert chains[0].hops[0].found_by == "pool" and not chains[0].hops[0].bridge
    assert chains[0].hops[1].found_by == "hop 1 search" and chains[0].hops[1].bridge == FIRST.title
    assert events[-1].passages_read == ["a", "b"]
    final = prompts[-1]
    assert final.index(FIRST.text[:40]) < final.index(BRIDGE.text[:30])  # hop order in the prompt
    searches = [e for e in events if isinstance(e, Retrieved)]
    assert searches[-1].query.startswith(QUESTION) and chains[0].searches == 1  # max_hops 3, budget 2: one search
    line = StepNarrator().line(chains[0])
    assert line.startswith("Read as a chain after 1 hop search: hop 1") and "hop 2" in line
    again = event_from_dict(json.loads(json.dumps(chains[0].to_dict())))  # the wire shape round-trips
    assert isinstance(again, ChainSelected) and again.hops == chains[0].hops


def test_without_the_option_or_the_scorer_nothing_changes(judge_folder):
    events, _, retriever = run(judge_folder, chain=False)
    assert not [e for e in events if isinstance(e, ChainSelected)]
    assert "b" not in events[-1].passages_read
    settings = json.loads((judge_folder / SETTINGS_FILE).read_text(encoding="utf-8"))
    del settings["chain"]
    (judge_folder / SETTINGS_FILE).write_text(json.dumps(settings), encoding="utf-8")
    events, _, _ = run(judge_folder, chain=True)
    assert not [e for e in events if isinstance(e, ChainSelected)]


def test_a_damaged_chain_file_is_one_clear_error(judge_folder):
    from models.errors import ModelError

    (judge_folder / "chain.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(ModelError, match="chain scorer file .* unreadable"):
        RelevanceJudge(judge_folder, n_threads=1)


def test_after_the_missing_hop_the_union_read_set_is_picked_as_a_chain_too(judge_folder):
    events, prompts, _ = run(judge_folder, chain=True, hop="always")
    chains = [e for e in events if isinstance(e, ChainSelected)]
    assert len(chains) == 2  # the first hop's read set, then the one after the sub-questions
    assert [h.id for h in chains[1].hops][:2] == ["a", "b"] and len(chains[1].hops) == 3  # the union reads 3 of 3
    assert events[-1].passages_read == [h.id for h in chains[1].hops]
