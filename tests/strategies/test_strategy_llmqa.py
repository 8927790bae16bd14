"""LLMQA: expansion choice, sliding-window reranking, ranking-output parsing (fake models)."""
import itertools
import re

import numpy as np
import pytest

from assistant.events.core import Detail, Retrieved
from assistant.runner import run_question
from assistant.strategies import make_strategy
from assistant.strategies.llmqa import parse_ranking, window_starts
from models.errors import ConfigError

from helpers.fakes import FakeReader, FakeRetriever, make_context

CORPUS = {f"p{i}": f"passage number {i}" for i in range(10)}


def kinds(events, kind):
    return [e for e in events if isinstance(e, Detail) and e.kind == kind]


# -- parsing the reranker's reply ------------------------------------------------------------
@pytest.mark.parametrize("reply, expected", [
    ("[3] > [1] > [2]", [2, 0, 1]),
    ("3, 1, 2", [2, 0, 1]),
    ("[2]", [1, 0, 2]),  # missing ids follow in original order
    ("[2] > [2] > [9] > [0] > [3]", [1, 2, 0]),  # repeats and unknown ids ignored
    ("I cannot rank these.", [0, 1, 2]),
    ("", [0, 1, 2]),
    ("Passage 3 is best, then passage 1", [2, 0, 1]),
    ("[12] > [3]", [2, 0, 1]),  # 12 is not a position among 3
])
def test_parse_ranking(reply, expected):
    assert parse_ranking(reply, 3) == expected


def test_parse_ranking_is_always_a_permutation():
    rng = np.random.default_rng(0)
    for _ in range(200):
        count = int(rng.integers(1, 12))
        reply = " > ".join(f"[{int(x)}]" for x in rng.integers(-2, 15, size=int(rng.integers(0, 15))))
        assert sorted(parse_ranking(reply, count)) == list(range(count))


def test_windows_run_from_back_to_front():
    assert window_starts(10, 6, 3) == [(4, 10), (1, 7), (0, 4)]
    assert window_starts(20, 4, 2)[0] == (16, 20) and window_starts(20, 4, 2)[-1] == (0, 4)
    assert window_starts(5, 6, 3) == [(0, 5)]


# -- control flow ------------------------------------------------------------------------------
class FakeEmbedder:
    """Similarity = shared words (bag-of-words vectors over a tiny vocabulary)."""

    VOCAB = ["okafor", "born", "lagos", "kelp", "otter", "weather"]

    def encode(self, texts):
        return np.array([[t.lower().count(w) for w in self.VOCAB] for t in texts], dtype=np.float32) + 1e-3


def reverse_ranker(prompt):
    """Reranker that ranks the window in reverse; expansions and answers are scripted."""
    if prompt.startswith("Question:") and "Rank the" in prompt:
        count = int(prompt.split("Rank the ")[1].split()[0])
        return " > ".join(f"[{i}]" for i in range(count, 0, -1))
    return "Lagos"


def test_expansion_picked_by_similarity_then_rerank_and_answer():
    expansions = itertools.cycle(["Otters eat kelp.", "Okafor was born in Lagos.", "Weather is nice."])

    def answer(prompt):
        if "background note (2-3 sentences)" in prompt:
            return next(expansions)
        return reverse_ranker(prompt)

    retriever = FakeRetriever(CORPUS)
    retriever.embedder = FakeEmbedder()
    reader = FakeReader(answer)
    ctx = make_context(reader=reader, retriever=retriever)
    events = list(run_question("Where was Okafor born?", "llmqa", ctx))
    expansion = kinds(events, "llmqa.expansion")[0]
    assert expansion.data["chosen"] == 1 and expansion.data["by"] == "similarity to the question"
    assert len(expansion.data["expansions"]) == 3
    retrieved = [e for e in events if isinstance(e, Retrieved)][0]
    assert retrieved.query == "Where was Okafor born? Okafor was born in Lagos."
    assert len(retrieved.passages) == 10
    rerank = kinds(events, "llmqa.rerank")[0]
    assert len(rerank.data["windows"]) == 3 and rerank.data["windows"][0]["start"] == 4
    # reversing windows [4,10), [1,7), [0,4) carries p9, p8, p7 to the front; top w - l = 3 kept
    assert rerank.data["kept"] == ["p9", "p8", "p7"] and len(rerank.data["after"]) == 10
    final = reader.prompts[-1][-1]["content"]
    assert final.startswith("<background>\nOkafor was born in Lagos.") and "passage number 9" in final
    answer_event = events[-1]
    assert answer_event.text == "Lagos" and answer_event.passages_read == ["p9", "p8", "p7"]
    assert answer_event.counts["reader_calls"] == 3 + 3 + 1


def test_without_embedder_the_likeliest_expansion_wins():
    texts = itertools.cycle(["low", "high", "mid"])
    probs = {"low": 0.2, "high": 0.9, "mid": 0.5}

    def answer(prompt):
        return next(texts) if "background note" in prompt else reverse_ranker(prompt)

    reader = FakeReader(answer, prob=lambda p, text: probs.get(text, 0.5))
    events = list(run_question("Q?", "llmqa:candidates=4,window=4,step=2",
                               make_context(reader=reader, retriever=FakeRetriever(CORPUS))))
    expansion = kinds(events, "llmqa.expansion")[0]
    assert expansion.data["chosen"] == 1 and expansion.data["by"] == "average token probability"
    assert kinds(events, "llmqa.rerank")[0].data["kept"] == ["p3", "p2"]


def test_bad_options_are_config_errors():
    with pytest.raises(ConfigError, match="smaller than window"):
        make_strategy("llmqa:window=3,step=3")
    with pytest.raises(ConfigError, match="window"):
        make_strategy("llmqa:window=1")


def test_a_reranker_that_copies_the_prompts_example_keeps_the_retrieval_order():
    # Small readers often reply with the format example verbatim; that must not reorder anything
    # (an example written as a full reverse ranking once made LLMQA keep the worst passages).
    def answer(prompt):
        if "Rank the" in prompt:
            return re.findall(r"\[\d+\](?: > \[\d+\])+", prompt.split("</documents>")[-1])[-1]
        return "Lagos"

    events = list(run_question("Q?", "llmqa", make_context(reader=FakeReader(answer),
                                                           retriever=FakeRetriever(CORPUS))))
    assert kinds(events, "llmqa.rerank")[0].data["kept"] == ["p0", "p1", "p2"]
