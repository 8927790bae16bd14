"""lab/reader_bound.py: the read sets it answers a MuSiQue question from (no models)."""
from __future__ import annotations

import pytest

RECORD = {
    "id": "2hop__1_2", "question": "Where was the director of Jaws born?", "answer": "Cincinnati",
    "paragraphs": [{"title": "Ohio", "paragraph_text": "Ohio is a state."},
                   {"title": "Steven Spielberg", "paragraph_text": "Spielberg was born in Cincinnati."},
                   {"title": "Jaws (film)", "paragraph_text": "Jaws was directed by Steven Spielberg."}],
    "question_decomposition": [{"question": "Who directed Jaws?", "answer": "Steven Spielberg", "paragraph_support_idx": 2},
                               {"question": "Where was #1 born?", "answer": "Cincinnati", "paragraph_support_idx": 1}],
}


@pytest.fixture(scope="module")
def reader_bound():
    from lab import reader_bound

    return reader_bound


def test_the_chain_is_read_in_hop_order(reader_bound):
    assert [p.title for p in reader_bound.read_set(RECORD, "hop")] == ["Jaws (film)", "Steven Spielberg"]
    shuffled = [p.title for p in reader_bound.read_set(RECORD, "shuffled")]
    assert sorted(shuffled) == ["Jaws (film)", "Steven Spielberg"]
    assert shuffled == [p.title for p in reader_bound.read_set(RECORD, "shuffled")]  # the same order each time


def test_oracle_facts_fill_in_earlier_answers(reader_bound):
    assert reader_bound.oracle_facts(RECORD) == [("Who directed Jaws?", "Steven Spielberg"),
                                                 ("Where was Steven Spielberg born?", "Cincinnati")]


def test_noise_comes_from_the_recorded_read_set_less_the_gold(reader_bound):
    recorded = {"read": [{"id": "a", "title": "Steven Spielberg", "text": "Spielberg was born in  Cincinnati."},
                         {"id": "b", "title": "Ohio", "text": "Ohio is a state."},
                         {"id": "c", "title": "Jaws 2", "text": "Jaws 2 is a sequel."},
                         {"id": "d", "title": "Shark", "text": "Sharks are fish."}]}
    titles = [p.title for p in reader_bound.read_set(RECORD, "hop+dist", recorded, read=4)]
    assert titles == ["Jaws (film)", "Steven Spielberg", "Ohio", "Jaws 2"]
