"""RQ-RAG: search on demand, the refinement tree, trajectory selection (fake models)."""
import math

import pytest

from assistant.events.event_json import event_from_dict
from assistant.events.core import Detail, Draft, Retrieved
from assistant.runner import run_question
from assistant.strategies.rq_rag import Trajectory, clean_query, normalize_answer, select

from helpers.fakes import FakeReader, FakeRetriever, make_context

CORPUS = {f"p{i}": f"passage number {i}" for i in range(6)}


def kinds(events, kind):
    return [e for e in events if isinstance(e, Detail) and e.kind == kind]


def search_says(yes: bool):
    return lambda prompt, option: (-0.1 if option.lower() == "yes" else -3.0) * (1 if yes else -1)


def tree_reader():
    """Query prompts get a query naming the instruction's first word; answer prompts get Lagos."""
    def answer(prompt):
        tail = prompt.rsplit("\n\n", 1)[-1]
        for action in ("Rewrite", "Split", "Say"):
            if tail.startswith(action):
                return f"query by {action.lower()}"
        return "Lagos"
    return FakeReader(answer, option_logprob=search_says(True))


def test_tree_explores_every_action_to_depth_and_marks_one_trajectory():
    reader = tree_reader()
    retriever = FakeRetriever(CORPUS)
    ctx = make_context(reader=reader, retriever=retriever)
    events = list(run_question("Where was the Heron lead born?", "rq-rag", ctx))
    decision = kinds(events, "rq-rag.search-decision")[0]
    assert decision.data["search"] is True and decision.data["p_search"] > 0.5
    refines = kinds(events, "rq-rag.refine")
    assert len(refines) == 3 + 9  # three actions at the root, three below each child
    assert [r.data["action"] for r in refines[:4]] == ["rewrite", "rewrite", "decompose", "disambiguate"]
    assert all(len(r.passages) == 3 for r in events if isinstance(r, Retrieved))  # docs=3 per search
    assert retriever.queries[0] == "query by rewrite"
    # every node below the root is answered: 3 + 9 trajectories
    trajectories = kinds(events, "rq-rag.trajectory")
    assert len(trajectories) == 12 and sum(t.data["chosen"] for t in trajectories) == 1
    assert {len(t.data["steps"]) for t in trajectories} == {1, 2}
    # children hang below the refinement step that produced them
    second_level = [r for r in refines if r.depth == 2]
    assert {r.parent for r in second_level} == {r.step for r in refines if r.depth == 1}
    answer = events[-1]
    assert answer.text == "Lagos" and answer.resolved_by == "rq-rag ensemble"
    assert answer.counts["reader_calls"] == 1 + 12 + 12 and answer.counts["retrievals"] == 12
    for event in events:
        assert event_from_dict(event.to_dict()) == event


def test_no_search_needed_answers_directly():
    reader = FakeReader(lambda p: "Hello!", option_logprob=search_says(False))
    retriever = FakeRetriever(CORPUS)
    events = list(run_question("Hi there", "rq-rag", make_context(reader=reader, retriever=retriever)))
    assert kinds(events, "rq-rag.search-decision")[0].data["search"] is False
    assert retriever.queries == [] and not kinds(events, "rq-rag.trajectory")
    assert events[-1].resolved_by == "closed-book"


def test_options_shape_the_tree():
    reader = tree_reader()
    events = list(run_question("Q?", "rq-rag:depth=1,docs=2,actions=rewrite+decompose,search=always",
                               make_context(reader=reader, retriever=FakeRetriever(CORPUS))))
    assert not kinds(events, "rq-rag.search-decision")
    assert [r.data["action"] for r in kinds(events, "rq-rag.refine")] == ["rewrite", "decompose"]
    assert all(len(r.passages) == 2 for r in events if isinstance(r, Retrieved))
    assert len(kinds(events, "rq-rag.trajectory")) == 2


def traj(answer, conf, logprobs):
    return Trajectory(answer=answer, confidence=conf, logprobs=logprobs)


def test_selection_by_ppl_confidence_and_ensemble():
    ts = [traj("Paris", 0.5, [-0.1, -0.1]), traj("Lyon", 0.9, [-2.0]), traj("the paris.", 0.6, [-1.0])]
    assert select(ts, "ppl")[0] == 0  # lowest perplexity over everything generated
    assert select(ts, "confidence")[0] == 1
    best, scores = select(ts, "ensemble")  # Paris: 0.5 + 0.6 > Lyon 0.9
    assert best == 2 and scores[0] == pytest.approx(1.1) and scores[1] == pytest.approx(0.9)
    assert ts[0].perplexity == pytest.approx(math.exp(0.1))


def test_ensemble_selection_end_to_end_prefers_agreeing_answers():
    # depth 1: three trajectories; two agree on "Lagos" with low confidence, one says "Abuja" confidently
    answers = iter(["Lagos", "Abuja", "lagos"])

    def answer(prompt):
        tail = prompt.rsplit("\n\n", 1)[-1]
        return "a query" if "query" in tail else next(answers)

    probs = {"Lagos": 0.4, "Abuja": 0.7, "lagos": 0.4}
    reader = FakeReader(answer, prob=lambda p, text: probs.get(text, 0.5), option_logprob=search_says(True))
    ctx = make_context(reader=reader, retriever=FakeRetriever(CORPUS))
    events = list(run_question("Q?", "rq-rag:depth=1", ctx))
    chosen = [t for t in kinds(events, "rq-rag.trajectory") if t.data["chosen"]]
    assert chosen[0].data["answer"] == "Lagos" and events[-1].text == "Lagos"
    assert chosen[0].data["score"] == pytest.approx(0.8)

    answers = iter(["Lagos", "Abuja", "lagos"])
    ctx = make_context(reader=FakeReader(answer, prob=lambda p, text: probs.get(text, 0.5),
                                         option_logprob=search_says(True)), retriever=FakeRetriever(CORPUS))
    events = list(run_question("Q?", "rq-rag:depth=1,select=confidence", ctx))
    assert events[-1].text == "Abuja" and events[-1].resolved_by == "rq-rag confidence"


def test_budget_stops_the_tree_but_keeps_finished_trajectories():
    reader = tree_reader()
    ctx = make_context(reader=reader, retriever=FakeRetriever(CORPUS), max_reader_calls=5)
    events = list(run_question("Q?", "rq-rag", ctx))
    assert any("bound" in e.message for e in events if e.type == "note")
    finished = kinds(events, "rq-rag.trajectory")
    assert 1 <= len(finished) < 12 and events[-1].text == "Lagos"
    assert events[-1].counts["reader_calls"] == 5


def test_clean_query():
    assert clean_query('Query: "birthplace of Mira Okafor"\nmore', "Q?") == "birthplace of Mira Okafor"
    assert clean_query("  \n", "Where?") == "Where?"
    assert normalize_answer("The Beatles.") == "beatles"
