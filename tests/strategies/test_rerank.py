"""The trained judge ranks a wide pool and the reader reads only its top passages (rag:rerank,
RA-ISF's relevance step), with each passage's score and rank before/after in the events."""
import pytest
from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

from assistant.events.core import Answer, Decomposed, Relevance
from assistant.runner import run_question
from models.errors import ConfigError


class FakeRelevance:
    """Scores a passage by a number written in its text ("score=0.83")."""

    name = "fake-trained"
    threshold = 0.5

    def __init__(self):
        self.calls = []

    def score(self, question, passages):
        self.calls.append(len(passages))
        return [float(p.split("score=")[1].split()[0]) for p in passages]


def pool_retriever(scores):
    return FakeRetriever({f"p{i}": f"passage {i} score={s}" for i, s in enumerate(scores)})


def run(strategy, scores, **settings):
    relevance = FakeRelevance()
    ctx = make_context(reader=FakeReader(answer=lambda prompt: "answer"), retriever=pool_retriever(scores),
                       judge=FakeJudge(), **settings)
    ctx.relevance = relevance
    return list(run_question("Which passage?", strategy, ctx)), relevance


def test_rag_rerank_reads_the_judges_top_passages_in_its_order():
    scores = [0.1, 0.9, 0.2, 0.7, 0.6, 0.05]
    events, relevance = run("rag:rerank=true", scores, pool=6, max_passages=2, min_passages=1)
    assert relevance.calls == [6]  # the whole pool, judged in one batch call
    answer = events[-1]
    assert isinstance(answer, Answer) and answer.passages_read == ["p1", "p3"]
    verdicts = [e for e in events if isinstance(e, Relevance)]
    assert [(v.passage_id, v.rank_before, v.rank_after, v.relevant) for v in verdicts[:3]] == [
        ("p1", 2, 1, True), ("p3", 4, 2, True), ("p4", 5, 3, False)]
    assert verdicts[0].threshold == 0.5 and verdicts[0].to_dict()["rank_after"] == 1


def test_at_least_min_passages_are_read_even_below_the_threshold():
    events, _ = run("rag:rerank=true", [0.1, 0.3, 0.2], pool=3, max_passages=5, min_passages=2)
    assert events[-1].passages_read == ["p1", "p2"]


def test_plain_rag_reads_k_passages_without_judging():
    events, relevance = run("rag", [0.1, 0.9, 0.2, 0.7], k=3)
    assert relevance.calls == [] and len(events[-1].passages_read) == 3


def test_ra_isf_answers_from_the_ranked_top_when_something_is_relevant():
    events, relevance = run("ra-isf:self_knowledge=false", [0.2, 0.8, 0.1], pool=3, max_passages=5,
                            min_passages=1)
    assert relevance.calls == [3]
    answer = events[-1]
    assert answer.resolved_by == "passages" and answer.passages_read == ["p1"]


def test_ra_isf_decomposes_when_the_judge_finds_nothing_relevant():
    events, _ = run("ra-isf:self_knowledge=false", [0.2, 0.1, 0.3], pool=3, max_passages=5, min_passages=2)
    assert any(isinstance(e, Decomposed) for e in events)
    answer = events[-1]
    # cannot decompose: the fallback reads the judge's top passages, not the whole pool
    assert answer.resolved_by == "fallback" and answer.passages_read == ["p2", "p0"]


def test_rag_rerank_without_the_trained_judge_is_a_clear_error():
    ctx = make_context(reader=FakeReader(), retriever=pool_retriever([0.5]))
    with pytest.raises(ConfigError, match="rerank needs the trained relevance judge"):
        list(run_question("q?", "rag:rerank=true", ctx))


def test_trace_shows_rank_before_and_after_and_the_threshold():
    from assistant.cli.render import trace_line

    events, _ = run("rag:rerank=true", [0.1, 0.9], pool=2, max_passages=1, min_passages=1)
    first = next(e for e in events if isinstance(e, Relevance))
    line = trace_line(first)
    assert line.strip() == "✓ p1: judged 1st (search: 2nd), score 0.90 ≥ 0.50"
