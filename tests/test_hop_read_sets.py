"""lab/hop_read_sets.py: the read sets it re-answers a hopped question from (no models)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from assistant.events import Passage


def passage(pid: str) -> Passage:
    return Passage(id=pid, text=f"text {pid}", title=pid, source="", path=f"/{pid}")


class FakeReplay:
    """The replay's answers as the script reads them: a ranked union pool, the question's own
    search, each sub-search's kept passages (best first)."""

    def __init__(self, union, wide, sub_kept):
        self.union_pool, self.wide, self.sub_kept = union, wide, sub_kept
        self.settings = SimpleNamespace(k=len(wide), min_passages=2, max_passages=5)
        self.judge = SimpleNamespace(selector=SimpleNamespace(threshold=0.5))
        self.retriever = SimpleNamespace(search=lambda query, k: self.wide[:k])

    def union(self, question, record):
        return self.union_pool, [0.9, 0.8, 0.7, 0.2] + [0.1] * (len(self.union_pool) - 4)

    def ranked(self, query):
        return [], self.sub_kept[query]

    def first_and_parts(self, question, record, first=3):
        return self.union_pool[:first]


@pytest.fixture
def hop_read_sets():
    from lab import hop_read_sets

    return hop_read_sets


def test_read_sets_per_hop_and_wide(hop_read_sets):
    union = [passage(f"u{i}") for i in range(12)]
    wide = [passage("u1"), passage("w1"), *(passage(f"w{i}") for i in range(2, 10))]
    record = {"sub_questions": ["Who directed Jaws?", "Where was #1 born?"],
              "sub_answers": [["Who directed Jaws?", "Steven Spielberg"],
                              ["Where was Steven Spielberg born?", "Cincinnati"]]}
    sub_kept = {"Who directed Jaws?": [passage("u0"), passage("s1")],  # its best is already in the pool's top
                "Where was Steven Spielberg born?": [passage("s2"), passage("s3")]}
    sets = hop_read_sets.read_sets(FakeReplay(union, wide, sub_kept), "Where was the director of Jaws born?", record)

    ids = {name: [p.id for p in read] for name, read in sets.items()}
    assert ids["union-5"] == ["u0", "u1", "u2", "u3", "u4"]
    assert ids["union-kept"] == ["u0", "u1", "u2"]  # 3 at or above the threshold, within 2..5
    assert ids["union-10"] == [f"u{i}" for i in range(10)]
    assert ids["wide-10"] == [p.id for p in wide]
    # the pool's top 5 first, then rag's passages not among them, 10 in all
    assert ids["union-5+wide"] == ["u0", "u1", "u2", "u3", "u4", "w1", "w2", "w3", "w4", "w5"]
    # each sub-question's best passage (the second search's, with #1 filled in) after the pool's top
    assert ids["union-3+parts"] == ["u0", "u1", "u2", "s2"]
    assert ids["union-5+parts"] == ["u0", "u1", "u2", "u3", "u4", "s2"]
    assert set(ids) == set(hop_read_sets.READ_SETS)


def test_every_read_set_has_a_no_facts_variant(hop_read_sets):
    assert all(name + hop_read_sets.NO_FACTS in hop_read_sets.VARIANTS for name in hop_read_sets.READ_SETS)


def test_two_sub_questions_with_the_same_best_passage_add_it_once(hop_read_sets):
    union = [passage(f"u{i}") for i in range(6)]
    record = {"sub_questions": ["Who directed Jaws?", "Where was #1 born?"],
              "sub_answers": [["Who directed Jaws?", "Spielberg"], ["Where was Spielberg born?", "Cincinnati"]]}
    shared = passage("s1")
    sub_kept = {"Who directed Jaws?": [shared], "Where was Spielberg born?": [shared]}
    sets = hop_read_sets.read_sets(FakeReplay(union, union[:2], sub_kept), "q", record)
    assert [p.id for p in sets["union-3+parts"]] == ["u0", "u1", "u2", "s1"]
