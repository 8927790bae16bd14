"""The chain selector: each next passage scored given the kept ones (bridge, open question words,
hop searches), the stop, and the scorer file's errors."""
import json
import math

import pytest

from assistant.retrieval.chain_select import CHAIN_FEATURES, ChainCandidate, ChainView, HopSearches, select_chain
from research.judge_training.chain_fit import run_plain
from models.errors import ModelError
from models.judges.chain_scorer import ChainScorer

QUESTION = "Who was the first president of the publisher of Journal of Psychotherapy Integration?"
FIRST = ChainCandidate("a", "Journal of Psychotherapy Integration",
                       "Journal of Psychotherapy Integration is a journal published by the American Psychological "
                       "Association.", selector=0.9)
BRIDGE = ChainCandidate("b", "American Psychological Association",
                        "The association was founded in 1892. G. Stanley Hall was elected as its leader.",
                        selector=0.1)
DISTRACTOR = ChainCandidate("c", "Journal of Mathematical Physics",
                            "Journal of Mathematical Physics is a journal; its first editor was a physicist.",
                            selector=0.5)
OTHER = ChainCandidate("d", "Psychotherapy", "Psychotherapy is the use of psychological methods.", selector=0.3)


class LinearScorer:
    """P = sigmoid(w . features - bias): a hand-made stand-in for the trained trees."""

    def __init__(self, weights: dict[str, float], bias: float = 1.0, stop: float = 0.0, max_hops: int = 4):
        self.w = [weights.get(name, 0.0) for name in CHAIN_FEATURES]
        self.bias, self.stop, self.max_hops = bias, stop, max_hops

    def probabilities(self, rows):
        return [1 / (1 + math.exp(-(sum(w * x for w, x in zip(self.w, row)) - self.bias))) for row in rows]


def column(rows, name):
    return [row[CHAIN_FEATURES.index(name)] for row in rows]


def test_features_see_the_bridge_only_once_its_first_hop_is_kept():
    view = ChainView(QUESTION, [FIRST, BRIDGE, DISTRACTOR, OTHER])
    before = view.features([], HopSearches())
    after = view.features([0], HopSearches())
    assert column(before, "title_named_by_kept") == [0, 0, 0, 0]
    assert column(after, "title_named_by_kept")[1] == 1.0  # "American Psychological Association" is named by FIRST
    assert column(after, "title_named_by_kept")[2] == 0.0
    # the question words FIRST covers are no longer open: the distractor's "journal" counts for less
    assert column(after, "open_question_idf")[2] < column(before, "open_question_idf")[2]
    assert column(after, "hop") == [1.0] * 4 and column(before, "hop") == [0.0] * 4
    assert view.bridge(1, [0]) == FIRST.title


def test_the_chain_takes_the_bridge_over_a_passage_the_selector_prefers():
    scorer = LinearScorer({"selector": 3.0, "title_named_by_kept": 4.0})
    picks = run_plain(select_chain(QUESTION, [FIRST, DISTRACTOR, OTHER, BRIDGE], scorer, budget=3))
    assert [p.candidate.key for p in picks] == ["a", "b", "c"]
    assert [p.hop for p in picks] == [1, 2, 3]
    assert picks[1].bridge == FIRST.title and picks[1].found_by == "pool"
    # without the bridge feature the selector's order comes back: the test can fail
    plain = run_plain(select_chain(QUESTION, [FIRST, DISTRACTOR, OTHER, BRIDGE], LinearScorer({"selector": 3.0}), 3))
    assert [p.candidate.key for p in plain] == ["a", "c", "d"]


def test_a_hop_search_brings_a_passage_the_pool_lacked():
    searched = []

    def search(query):
        searched.append(query)
        yield "an event"
        return [BRIDGE, OTHER]

    scorer = LinearScorer({"selector": 3.0, "hop_search_last_inv": 5.0}, max_hops=2)
    gen = select_chain(QUESTION, [FIRST, DISTRACTOR, OTHER], scorer, budget=3, search=search)
    events = []
    try:
        while True:
            events.append(next(gen))
    except StopIteration as done:
        picks = done.value
    assert events == ["an event"]  # the search's events pass through; max_hops=2: one search only
    assert len(searched) == 1 and searched[0].startswith(QUESTION) and FIRST.title in searched[0]
    assert [p.candidate.key for p in picks][:2] == ["a", "b"]
    assert picks[1].found_by == "hop 1 search" and picks[0].found_by == "pool"


def test_below_the_stop_the_rest_is_filled_in_selector_order():
    scorer = LinearScorer({"title_named_by_kept": 6.0, "selector": 1.0}, bias=2.0, stop=0.5)
    picks = run_plain(select_chain(QUESTION, [FIRST, DISTRACTOR, OTHER, BRIDGE], scorer, budget=4))
    assert [p.candidate.key for p in picks] == ["a", "b", "c", "d"]
    assert [p.in_chain for p in picks] == [True, True, False, False]


def test_the_budget_and_an_empty_pool():
    scorer = LinearScorer({"selector": 1.0})
    assert run_plain(select_chain(QUESTION, [], scorer, budget=5)) == []
    assert len(run_plain(select_chain(QUESTION, [FIRST, BRIDGE], scorer, budget=5))) == 2


def write_spec(folder, **changes):
    spec = {"features": list(CHAIN_FEATURES), "stop": 0.2, "max_hops": 4,
            "model": {"init": -1.0, "learning_rate": 0.5, "trees": [
                {"feature": [CHAIN_FEATURES.index("title_named_by_kept"), -2, -2], "threshold": [0.5, 0, 0],
                 "left": [1, -1, -1], "right": [2, -1, -1], "value": [0, -2.0, 6.0]}]}}
    spec.update(changes)
    (folder / "chain.json").write_text(json.dumps(spec))


def test_the_scorer_file_scores_and_checks_its_features(tmp_path):
    write_spec(tmp_path)
    scorer = ChainScorer(tmp_path)
    scorer.check_features(CHAIN_FEATURES)
    rows = ChainView(QUESTION, [FIRST, BRIDGE]).features([0], HopSearches())
    low, high = scorer.probabilities(rows)
    assert high > 0.8 > 0.2 > low
    with pytest.raises(ModelError, match="other features"):
        scorer.check_features(CHAIN_FEATURES[:-1])


@pytest.mark.parametrize("change", [{"stop": 2.0}, {"features": "x"}, {"model": {"init": 0}}, {"max_hops": 0}])
def test_a_broken_scorer_file_is_one_clear_error(tmp_path, change):
    write_spec(tmp_path, **change)
    with pytest.raises(ModelError, match="chain scorer file"):
        ChainScorer(tmp_path)
    with pytest.raises(ModelError, match="missing"):
        ChainScorer(tmp_path / "nowhere")
