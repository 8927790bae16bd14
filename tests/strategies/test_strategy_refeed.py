"""ReFeed: control flow with deterministic fake models."""
import itertools

import pytest

from assistant.events.core import Detail, Draft, Note, Passage, Retrieved
from assistant.runner import run_question
from assistant.strategies import make_strategy
from assistant.strategies.refeed import merge_feedback
from models.errors import ConfigError

from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

CORPUS = {
    "heron": "Project Heron is led by Mira Okafor",
    "okafor": "Mira Okafor was born in Lagos",
    "otter": "Project Otter films kelp forests",
}


class ScoredRetriever(FakeRetriever):
    """Each query finds the passages whose text shares a word with the draft part of the query."""

    def search(self, query, k):
        self.queries.append(query)
        words = set(query.lower().split()[4:])  # the question has 4 words; the draft follows
        hits = [p for p in self.passages if words & set(p.text.lower().split())]
        return [Passage(**{**p.__dict__, "score": 1.0 - 0.1 * i}) for i, p in enumerate(hits)][:k]


def kinds(events, kind):
    return [e for e in events if isinstance(e, Detail) and e.kind == kind]


def is_refine(prompt):
    return "<drafts>" in prompt


def test_refined_answer_kept_when_likelier():
    reader = FakeReader(lambda p: "Lagos" if is_refine(p) else "Abuja",
                        prob=lambda p, text: 0.9 if is_refine(p) else 0.4)
    ctx = make_context(reader=reader, retriever=FakeRetriever(CORPUS))
    events = list(run_question("Where was Okafor born?", "refeed:drafts=1", ctx))
    retrieved = [e for e in events if isinstance(e, Retrieved)]
    assert [r.query for r in retrieved] == ["Where was Okafor born? Abuja"]  # question + draft
    refine_prompt = reader.prompts[-1][-1]["content"]
    assert "<documents>" in refine_prompt and "- Abuja" in refine_prompt
    decision = kinds(events, "refeed.decision")[0]
    assert decision.data["kept"] == "refined"
    assert decision.data["draft"]["avg_prob"] == pytest.approx(0.4)
    assert decision.data["refined"]["avg_prob"] == pytest.approx(0.9)
    answer = events[-1]
    assert answer.text == "Lagos" and answer.resolved_by == "refinement" and len(answer.passages_read) == 3
    assert answer.counts["reader_calls"] == 2


def test_draft_kept_when_likelier_unless_ensemble_is_off():
    reader = FakeReader(lambda p: "Lagos" if is_refine(p) else "Abuja",
                        prob=lambda p, text: 0.3 if is_refine(p) else 0.8)
    ctx = make_context(reader=reader, retriever=FakeRetriever(CORPUS))
    events = list(run_question("Where was Okafor born?", "refeed:drafts=1", ctx))
    assert kinds(events, "refeed.decision")[0].data["kept"] == "draft"
    assert events[-1].text == "Abuja" and events[-1].resolved_by == "closed-book"

    ctx = make_context(reader=reader, retriever=FakeRetriever(CORPUS))
    events = list(run_question("Where was Okafor born?", "refeed:drafts=1,ensemble=false", ctx))
    decision = kinds(events, "refeed.decision")[0]
    assert decision.data == {**decision.data, "kept": "refined", "ensemble": False}
    assert events[-1].text == "Lagos"


def test_diverse_drafts_each_retrieve_and_merge_dedupes_by_best_score():
    samples = itertools.cycle(["kelp", "Lagos", "kelp"])  # greedy draft, then two sampled ones
    reader = FakeReader(lambda p: "Lagos" if is_refine(p) else next(samples))
    retriever = ScoredRetriever(CORPUS)
    ctx = make_context(reader=reader, retriever=retriever, k=2)
    events = list(run_question("Where was Okafor born?", "refeed:drafts=3", ctx))
    drafts = kinds(events, "refeed.drafts")[0].data["drafts"]
    assert [d["text"] for d in drafts] == ["kelp", "Lagos", "kelp"]
    assert [d["sampled"] for d in drafts] == [False, True, True]
    # one retrieval per distinct draft, each with the question in front
    assert retriever.queries == ["Where was Okafor born? kelp", "Where was Okafor born? Lagos"]
    feedback = kinds(events, "refeed.feedback")[0].data["passages"]
    assert [p["id"] for p in feedback] == ["otter", "okafor"]  # both score 1.0, first seen first
    refine_prompt = reader.prompts[-1][-1]["content"]
    assert "- kelp\n- Lagos\n- kelp" in refine_prompt


def test_merge_feedback_keeps_one_copy_with_its_best_score():
    a = [Passage("x", "t", score=0.2), Passage("y", "t", score=0.5)]
    b = [Passage("x", "t", score=0.9), Passage("z", "t", score=0.1)]
    merged = merge_feedback([a, b], 2)
    assert [(p.id, p.score) for p in merged] == [("x", 0.9), ("y", 0.5)]


def test_budget_hit_during_refinement_keeps_the_draft():
    reader = FakeReader(lambda p: "Abuja")
    ctx = make_context(reader=reader, retriever=FakeRetriever(CORPUS), max_reader_calls=1)
    events = list(run_question("Where was Okafor born?", "refeed:drafts=3", ctx))
    notes = [n.message for n in events if isinstance(n, Note)]
    assert any("bound" in m for m in notes)
    assert events[-1].text == "Abuja" and events[-1].counts["reader_calls"] == 1


def test_cli_flags_become_strategy_options():
    def flagged(spec, drafts, ensemble):  # what `ask -s SPEC --drafts N --no-ensemble` builds
        strategy = make_strategy(spec)
        return strategy.with_options(**strategy.refeed_flags(drafts, ensemble))

    assert flagged("refeed", None, True).opts == make_strategy("refeed").opts
    assert flagged("refeed", 1, False).opts.changed() == {"drafts": 1, "ensemble": False}
    assert flagged("refeed:drafts=2", None, False).opts.changed() == {"drafts": 2, "ensemble": False}
    assert flagged("default", None, False).opts.changed() == {"keep": "refined"}
    assert flagged("default:hop=always", None, False).opts.changed() == {"hop": "always", "keep": "refined"}
    with pytest.raises(ConfigError, match="no option drafts"):
        flagged("rag", 2, True)
    with pytest.raises(ConfigError, match="drafts"):
        make_strategy("refeed:drafts=0")


def test_drafts_events_carry_probabilities():
    reader = FakeReader(lambda p: "Abuja", prob=0.6)
    events = list(run_question("Where was Okafor born?", "refeed:drafts=2",
                               make_context(reader=reader, retriever=FakeRetriever(CORPUS))))
    drafts = [e for e in events if isinstance(e, Draft)]
    assert [d.basis for d in drafts] == ["closed-book draft", "sampled draft", "refinement"]
    assert all(d.avg_prob == pytest.approx(0.6) for d in drafts)
