"""lab/hop_read_sets.py: the read sets it re-answers a hopped question from, built by
lab/pipeline_misses.py's Replay over the product's own judge_pool and judge_union (no models:
a fake search and a fake trained judge)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from assistant.events.core import Passage

QUESTION = "Where was the director of Jaws born?"
RECORD = {"sub_questions": ["Who directed Jaws?", "Where was #1 born?"],
          "sub_answers": [["Who directed Jaws?", "Steven Spielberg"],
                          ["Where was Steven Spielberg born?", "Cincinnati"]]}
SCORES = {"u0": 0.95, "u1": 0.9, "u2": 0.85, "u3": 0.3, "u4": 0.25, "u5": 0.2, "s1": 0.15, "s2": 0.12,
          "w1": 0.1, "w2": 0.09, "w3": 0.08, "w4": 0.07, "w5": 0.06, "s3": 0.05, "w6": 0.04}


def passage(pid: str) -> Passage:
    return Passage(id=pid, text=f"text of {pid} score={SCORES[pid]}", title=pid, source="", path=f"{pid} #{pid}")


class Search:
    """Each query's results in search order (the fake index)."""

    def __init__(self, results: dict[str, list[str]]):
        self.results = results

    def search(self, query, k):
        return [passage(pid) for pid in self.results[query][:k]]


class Relevance:
    """A trained judge without a selector: a passage's score is the number in its text."""

    name, threshold, selector = "fake-trained", 0.5, None

    def score(self, question, texts):
        return [float(t.split("score=")[1].split()[0]) for t in texts]


def replay_of(results):
    from lab.pipeline_misses import Replay

    settings = SimpleNamespace(k=10, pool=20, min_passages=2, max_passages=5)
    return Replay(Search(results), Relevance(), settings)


@pytest.fixture
def hop_read_sets():
    from lab import hop_read_sets

    return hop_read_sets


def ids(passages):
    return [p.id for p in passages]


def test_read_sets_per_hop_and_wide(hop_read_sets):
    replay = replay_of({QUESTION: ["u3", "w1", "u0", "w2", "w3", "u1", "w4", "u2", "w5", "w6", "u4", "u5"],
                        "Who directed Jaws?": ["s1", "u0"],  # its best is already in the pool's top
                        "Where was Steven Spielberg born?": ["s3", "s2"]})  # #1 filled in, as follow_hops searches
    sets = {name: ids(read) for name, read in hop_read_sets.read_sets(replay, QUESTION, RECORD).items()}

    assert sets["union-5"] == ["u0", "u1", "u2", "u3", "u4"]  # everything found, ranked against the question
    assert sets["union-kept"] == ["u0", "u1", "u2"]  # 3 at or above the threshold, within 2..5
    assert sets["union-10"] == ["u0", "u1", "u2", "u3", "u4", "u5", "s1", "s2", "w1", "w2"]
    assert sets["wide-10"] == ["u3", "w1", "u0", "w2", "w3", "u1", "w4", "u2", "w5", "w6"]  # search order, unjudged
    # the pool's top 5 first, then rag's passages not among them, 10 in all
    assert sets["union-5+wide"] == ["u0", "u1", "u2", "u3", "u4", "w1", "w2", "w3", "w4", "w5"]
    # each sub-question's best passage after the pool's top (u0, the first one's, is there already)
    assert sets["union-3+parts"] == ["u0", "u1", "u2", "s2"]
    assert sets["union-5+parts"] == ["u0", "u1", "u2", "u3", "u4", "s2"]
    # hop_read=first: the first hop's top 3, then each sub-question's new top 2
    assert sets["current"] == ["u0", "u1", "u2", "s1", "s2", "s3"]
    assert set(sets) == set(hop_read_sets.READ_SETS)


def test_every_read_set_has_a_no_facts_variant(hop_read_sets):
    assert all(name + hop_read_sets.NO_FACTS in hop_read_sets.VARIANTS for name in hop_read_sets.READ_SETS)


def test_two_sub_questions_with_the_same_best_passage_add_it_once(hop_read_sets):
    replay = replay_of({QUESTION: ["u0", "u1", "u2", "u3", "u4", "u5"], "Who directed Jaws?": ["s1"],
                        "Where was Steven Spielberg born?": ["s1"]})
    assert ids(hop_read_sets.read_sets(replay, QUESTION, RECORD)["union-3+parts"]) == ["u0", "u1", "u2", "s1"]


def test_replay_names_what_was_searched_and_what_the_hopped_answer_read():
    replay = replay_of({QUESTION: ["u3", "w1", "u0", "w2"], "Who directed Jaws?": ["s1", "u0"],
                        "Where was Steven Spielberg born?": ["s3", "s2"]})
    record = {**RECORD, "resolved_by": "multi-hop"}
    searched, read = replay.passages(QUESTION, record, "union")
    assert searched == {"u3", "w1", "u0", "w2", "s1", "s2", "s3"}
    assert read == {"u0", "u3", "s1", "s2", "w1"}  # the union's top 5
    _, read_first = replay.passages(QUESTION, record, "first")
    assert read_first == {"u0", "u3", "s1", "s2", "s3"}  # first hop kept 2 (u0, u3: min_passages), then the parts'
