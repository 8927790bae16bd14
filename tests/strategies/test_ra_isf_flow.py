"""Control flow of every RA-ISF branch with deterministic fake models."""
from assistant.events.event_json import event_from_dict
from assistant.events.core import (Answer, Decomposed, Note, Relevance, Retrieved, SelfKnowledge, SubAnswer,
                              SubQuestion)
from assistant.runner import run_question
from assistant.strategies import make_strategy

from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

CORPUS = {
    "heron": "Project Heron is led by Mira Okafor",
    "okafor": "Mira Okafor was born in Lagos",
    "otter": "Project Otter films kelp forests",
}


def run(question, ctx, spec="ra-isf"):
    return list(run_question(question, make_strategy(spec), ctx))


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def test_knows_answers_closed_book_without_retrieval():
    retriever = FakeRetriever(CORPUS)
    ctx = make_context(judge=FakeJudge(knows=lambda q: True), retriever=retriever,
                       reader=FakeReader(lambda p: "Paris"))
    events = run("What is the capital of France?", ctx)
    assert of(events, SelfKnowledge)[0].knows is True
    assert not of(events, Retrieved) and retriever.queries == []
    answer = events[-1]
    assert isinstance(answer, Answer) and answer.text == "Paris"
    assert answer.resolved_by == "self-knowledge" and answer.counts["retrievals"] == 0


def test_relevant_passage_found_answers_from_it_only():
    judge = FakeJudge(relevant=lambda q, text: "led by" in text)
    reader = FakeReader(lambda prompt: "Mira Okafor")
    ctx = make_context(judge=judge, retriever=FakeRetriever(CORPUS), reader=reader)
    events = run("Who leads Project Heron?", ctx)
    verdicts = of(events, Relevance)
    assert [v.relevant for v in verdicts] == [True, False, False]
    answer = events[-1]
    assert answer.resolved_by == "passages" and answer.passages_read == ["heron"]
    prompt = reader.prompts[-1][-1]["content"]
    assert "<documents>" in prompt and "led by Mira Okafor" in prompt and "kelp" not in prompt
    assert not of(events, Decomposed)


def test_no_relevant_passage_decomposes_and_recurses():
    q = "Where was the leader of Project Heron born?"
    subs = ["Who leads Project Heron?", "Where was Mira Okafor born?"]
    judge = FakeJudge(relevant=lambda question, text: question in subs and (
        ("led by" in text and "leads" in question) or ("born" in text and "born" in question)),
        decompose={q: subs})
    reader = FakeReader(lambda prompt: "Lagos" if "born" in prompt.split("Question:")[-1] else "Mira Okafor")
    ctx = make_context(judge=judge, retriever=FakeRetriever(CORPUS), reader=reader)
    events = run(q, ctx)
    assert of(events, Decomposed)[0].sub_questions == subs
    sub_nodes = of(events, SubQuestion)
    assert [s.question for s in sub_nodes] == subs and all(s.depth == 1 for s in sub_nodes)
    # each sub-question's own steps hang below its node
    assert {e.parent for e in of(events, SelfKnowledge) if e.depth == 1} == {s.step for s in sub_nodes}
    assert [a.answer for a in of(events, SubAnswer)] == ["Mira Okafor", "Lagos"]
    answer = events[-1]
    assert answer.resolved_by == "decomposition" and answer.counts["sub_questions"] == 2
    assert answer.counts["retrievals"] == 3
    final_prompt = reader.prompts[-1][-1]["content"]
    assert "<facts>" in final_prompt and "A: Lagos" in final_prompt
    assert set(answer.passages_read) == {"heron", "okafor"}


def test_depth_bound_gives_unknown():
    # Every question decomposes into one that again finds nothing: recursion must stop at D_th.
    def decompose_forever(question):
        return [f"{question} (part a)?", f"{question} (part b)?"]

    class Forever(FakeJudge):
        def decompose(self, question):
            self.calls.append(("decompose", question))
            return decompose_forever(question)

    judge = Forever()
    ctx = make_context(judge=judge, retriever=FakeRetriever(CORPUS), depth=1)
    events = run("Unanswerable riddle?", ctx)
    sub_answers = of(events, SubAnswer)
    deepest = [a for a in sub_answers if a.depth == 2]
    assert deepest and all(a.answer == "unknown" and a.resolved_by == "depth-bound" for a in deepest)
    assert max(e.depth for e in events) == 2
    # nothing is asked of the judge about questions beyond the bound
    assert not [c for c in judge.calls if c[1].count("(part") > 1 and c[0] == "knows"]


def test_cannot_decompose_falls_back_to_retrieved_passages():
    ctx = make_context(judge=FakeJudge(), retriever=FakeRetriever(CORPUS))
    events = run("Something odd?", ctx)
    assert of(events, Decomposed)[0].sub_questions == []
    assert any("cannot decompose" in n.message for n in of(events, Note))
    assert events[-1].resolved_by == "fallback" and len(events[-1].passages_read) == 3


def test_ablations_switch_modules_off():
    judge = FakeJudge(knows=lambda q: True)
    ctx = make_context(judge=judge, retriever=FakeRetriever(CORPUS))
    events = run("Who leads Project Heron?", ctx, "ra-isf:self_knowledge=false,relevance=false")
    assert not of(events, SelfKnowledge) and not of(events, Relevance)
    assert events[-1].resolved_by == "passages" and len(events[-1].passages_read) == 3


def test_events_round_trip_through_json_dicts():
    ctx = make_context(judge=FakeJudge(relevant=lambda q, t: True), retriever=FakeRetriever(CORPUS))
    for event in run("Who leads Project Heron?", ctx):
        assert event_from_dict(event.to_dict()) == event


def test_reader_call_bound_stops_with_a_note():
    ctx = make_context(judge=FakeJudge(), retriever=FakeRetriever(CORPUS), max_reader_calls=1)
    # a bound already reached (the smallest a setting allows is 1; this flow makes one reader call)
    object.__setattr__(ctx.settings, "max_reader_calls", 0)
    events = run("Who leads Project Heron?", ctx)
    assert any("bound" in n.message for n in of(events, Note))
    assert events[-1].text == "unknown"
