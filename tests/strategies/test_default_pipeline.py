"""The default pipeline with fake models: the gate, the judged first hop, the sufficiency decision,
the missing hop with bridged sub-questions, and ReFeed against a judged pool."""
import pytest
from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

from assistant.context import Result
from index_builder.datasets import QAExample
from research.evaluation.results import make_record
from assistant.events.event_json import event_from_dict
from assistant.events.core import (Answer, Decomposed, Detail, Passage, Relevance, Retrieved, SelfKnowledge, SubQuestion)
from assistant.answering.hops import bridged_query, fill_references
from assistant.retrieval.rerank import Ranked
from assistant.runner import run_question
from assistant.strategies import DEFAULT_STRATEGY
from assistant.strategies.refeed import Candidate, answer_support, keep_refined

QUESTION = "Where was the leader of Project Heron born?"
CORPUS = {
    "heron": "Project Heron is led by Mira Okafor score=0.9",
    "otter": "Project Otter films kelp forests score=0.3",
    "okafor": "Mira Okafor was born in Lagos score=0.8",
    "lagos": "Lagos is a city in Nigeria score=0.6",
}


class WordRetriever(FakeRetriever):
    """A query finds the passages sharing a capitalised word with it, in corpus order."""

    def search(self, query, k):
        self.queries.append(query)
        names = {w.strip("?.,") for w in query.split() if w[:1].isupper()} - {"Where", "Who", "What"}
        return [p for p in self.passages if names & set(p.text.split())][:k]


class FakeRelevance:
    """A trained judge whose score is written in the passage ("score=0.9"), with a sufficiency rule."""

    name = "fake-trained"
    threshold = 0.5

    def __init__(self, sufficiency=(2, 0.5)):
        self.sufficiency = sufficiency

    def score(self, question, passages):
        return [float(p.split("score=")[1].split()[0]) for p in passages]


def reader_for(answers, prob=0.8):
    """Answers by the question the prompt ends with; refinements say 'Lagos, Nigeria'."""
    def answer(prompt):
        if "<drafts>" in prompt:
            return "Lagos, Nigeria"
        asked = prompt.rsplit("Question:", 1)[-1].strip()
        return answers.get(asked, "unknown")
    return FakeReader(answer, prob=prob)


SUBS = {QUESTION: ["Who leads Project Heron?", "Where was that leader born?"]}
ANSWERS = {"Who leads Project Heron?": "Mira Okafor", "Where was that leader born?": "Lagos", QUESTION: "Lagos"}


def run(spec, retriever=None, relevance=None, answers=ANSWERS, knows=lambda q: False, **settings):
    reader = reader_for(answers)
    judge = FakeJudge(knows=knows, decompose=SUBS)
    ctx = make_context(reader=reader, judge=judge, retriever=retriever or WordRetriever(CORPUS),
                       pool=4, max_passages=3, min_passages=1, **settings)
    ctx.relevance = relevance
    return list(run_question(QUESTION, spec, ctx)), reader, judge, ctx.retriever


MODULES = {"self-knowledge": 1, "retrieve": 2, "hop": 3, "multi-hop answer": 4, "refeed": 5, "memory check": 6}


def stages(events):
    """The pipeline's modules that ran, as numbers (1 gate ... 5 ReFeed); checks the shown numbering."""
    shown = [e.data for e in events if isinstance(e, Detail) and e.kind == "pipeline.stage"]
    assert [d["stage"] for d in shown] == list(range(1, len(shown) + 1))
    return [MODULES[d["module"]] for d in shown]


def test_default_is_this_pipeline_and_events_round_trip():
    assert DEFAULT_STRATEGY == "default"
    events, *_ = run(None, relevance=FakeRelevance())
    for event in events:
        assert event_from_dict(event.to_dict()) == event


def test_sufficient_support_answers_at_once_without_a_hop():
    # "heron" 0.9 and "okafor" 0.8 are both found by "Project Heron"? No: only heron is. Make the
    # first search find both, so the rank-2 score (0.8) reaches the cut.
    both = WordRetriever({**CORPUS, "heron": CORPUS["heron"] + " Lagos", "okafor": CORPUS["okafor"] + " Heron"})
    events, reader, judge, retriever = run("default:refine=false", retriever=both, relevance=FakeRelevance())
    assert stages(events) == [1, 2]
    assert not any(isinstance(e, Decomposed) for e in events)
    answer = events[-1]
    assert answer.text == "Lagos" and answer.resolved_by == "passages"
    assert answer.counts["reader_calls"] == 1  # the fake judge's gate is no reader call


def test_short_support_follows_the_missing_hop_with_the_bridge_filled_in():
    events, reader, judge, retriever = run("default:refine=false", relevance=FakeRelevance())
    assert stages(events) == [1, 2, 3, 4]
    subs = [e.question for e in events if isinstance(e, SubQuestion)]
    assert subs == SUBS[QUESTION]
    # the second sub-question is searched with the first one's answer: that finds the bridge passage
    assert retriever.queries == [QUESTION, "Who leads Project Heron?", "Where was that leader born? Mira Okafor"]
    final_prompt = reader.prompts[-1][-1]["content"]
    assert "Mira Okafor was born in Lagos" in final_prompt  # the second hop's passage
    assert "Q: Who leads Project Heron?" not in final_prompt  # the parts' answers only with hop_facts=true
    answer = events[-1]
    assert answer.text == "Lagos" and answer.resolved_by == "multi-hop"
    assert "okafor" in answer.passages_read and "heron" in answer.passages_read
    assert answer.counts["sub_questions"] == 2 and answer.counts["retrievals"] == 3


@pytest.mark.parametrize("read, expected", [("union", ["heron", "okafor", "otter"]), ("first", ["heron", "okafor"])])
def test_multi_hop_answer_reads_the_top_of_everything_found_or_the_first_hop_and_parts(read, expected):
    """union: every passage any search found, ranked against the question (Relevance steps under
    the multi-hop stage); first: the first hop's kept passages, then each part's new ones."""
    events, *_ = run(f"default:refine=false,hop_read={read}", relevance=FakeRelevance())
    assert events[-1].passages_read == expected
    stage = next(e for e in events if isinstance(e, Detail) and e.data.get("module") == "multi-hop answer")
    ranked = [e.passage_id for e in events if isinstance(e, Relevance) and e.parent == stage.step]
    assert ranked == (expected if read == "union" else [])


@pytest.mark.parametrize("facts", [True, False])
def test_hop_facts_switches_the_parts_answers_in_the_final_prompt(facts):
    events, reader, *_ = run(f"default:refine=false,hop_facts={str(facts).lower()}", relevance=FakeRelevance())
    final_prompt = reader.prompts[-1][-1]["content"]
    assert ("Q: Who leads Project Heron?\nA: Mira Okafor" in final_prompt) is facts
    assert "Mira Okafor was born in Lagos" in final_prompt  # the second hop's passage either way
    assert events[-1].resolved_by == "multi-hop"


def test_unknown_first_answer_takes_the_hop_even_without_a_sufficiency_rule():
    answers = {**ANSWERS, QUESTION: "unknown"}
    events, reader, *_ = run("default:refine=false", relevance=FakeRelevance(sufficiency=None), answers=answers)
    assert stages(events) == [1, 2, 3, 4]
    assert [d.data.get("why") for d in events if isinstance(d, Detail) and d.data.get("module") == "hop"] == [
        "the first answer was unknown"]


@pytest.mark.parametrize("spec, expected", [("default:hop=never,refine=false", [1, 2]),
                                            ("default:hop=always,refine=false", [1, 2, 3, 4]),
                                            ("default:self_knowledge=false,hop=never,refine=false", [2])])
def test_each_module_switches_off(spec, expected):
    both = WordRetriever({**CORPUS, "heron": CORPUS["heron"] + " Lagos", "okafor": CORPUS["okafor"] + " Heron"})
    events, *_ = run(spec, retriever=both, relevance=FakeRelevance())
    assert stages(events) == expected


def test_self_knowledge_answers_closed_book_then_looks_the_answer_up():
    events, reader, *_ = run(None, relevance=FakeRelevance(), knows=lambda q: True)
    # the gate, then one search for the grounding check (no reader call: the answer stays)
    assert stages(events) == [1, 6] and len([e for e in events if isinstance(e, Retrieved)]) == 1
    assert events[-1].resolved_by == "self-knowledge" and events[-1].counts["reader_calls"] == 1
    assert any(isinstance(e, SelfKnowledge) and e.knows for e in events)
    events, *_ = run("default:memory_check=false", relevance=FakeRelevance(), knows=lambda q: True)
    assert stages(events) == [1] and not any(isinstance(e, Retrieved) for e in events)


def test_refeed_refines_only_when_the_answer_search_brings_new_passages():
    events, reader, judge, retriever = run(None, relevance=FakeRelevance())
    assert stages(events) == [1, 2, 3, 4, 5]
    assert retriever.queries[-1] == f"{QUESTION} Lagos"  # question + answer
    # "Lagos" finds okafor (already read) and lagos (new): the reader refines, and the
    # likelier answer is kept (equal probabilities: the refinement)
    decision = [e for e in events if isinstance(e, Detail) and e.kind == "refeed.decision"]
    assert decision and decision[0].data["rule"] == "prob"
    assert events[-1].text == "Lagos, Nigeria" and events[-1].resolved_by == "multi-hop+refined"

    # without new passages there is nothing to check against: no refinement call
    same = WordRetriever({k: v for k, v in CORPUS.items() if k != "lagos"})
    events, reader, *_ = run(None, retriever=same, relevance=FakeRelevance())
    assert not any(isinstance(e, Detail) and e.kind == "refeed.decision" for e in events)
    assert events[-1].text == "Lagos" and not any("<drafts>" in p[-1]["content"] for p in reader.prompts)


def test_without_a_trained_judge_the_pipeline_reads_the_top_k():
    events, reader, *_ = run("default:refine=false", k=2)
    assert stages(events) == [1, 2] and len(events[-1].passages_read) <= 2


def test_bridged_query_fills_references_and_leaves_unknowns_out():
    pairs = [("Who leads Heron?", "Mira Okafor"), ("When?", "unknown")]
    assert bridged_query("Where was he born?", pairs) == "Where was he born? Mira Okafor"
    assert bridged_query("Where was #1 born?", pairs) == "Where was Mira Okafor born?"
    assert fill_references("What happened in #2 near #1?", pairs) == "What happened in #2 near Mira Okafor?"
    assert fill_references("Who is #3?", pairs) == "Who is #3?"


def test_a_later_sub_question_is_asked_with_the_earlier_answer_written_in():
    subs = {QUESTION: ["Who leads Project Heron?", "Where was #1 born?"]}
    answers = {**ANSWERS, "Where was Mira Okafor born?": "Lagos"}
    reader = reader_for(answers)
    ctx = make_context(reader=reader, judge=FakeJudge(decompose=subs), retriever=WordRetriever(CORPUS),
                       pool=4, max_passages=3, min_passages=1)
    ctx.relevance = FakeRelevance()
    events = list(run_question(QUESTION, "default:refine=false", ctx))
    assert [e.question for e in events if isinstance(e, SubQuestion)] == ["Who leads Project Heron?",
                                                                          "Where was Mira Okafor born?"]
    assert ctx.retriever.queries[-1] == "Where was Mira Okafor born?"
    assert events[-1].text == "Lagos"


def test_keep_rules():
    passages = [Passage(id="a", text="Mira Okafor was born in Lagos"), Passage(id="b", text="Abuja is a city")]
    ranking = Ranked(kept=passages, above_threshold=2, scores=[0.9, 0.1], by_id={"a": 0.9, "b": 0.1},
                     pool=passages)
    draft, refined = Candidate("Abuja", 0.9), Result("Lagos", avg_prob=0.5)
    assert answer_support("lagos", ranking) == 0.9 and answer_support("Paris", ranking) == 0.0
    assert keep_refined("prob", draft, refined, ranking)[0] is False  # 0.5 < 0.9
    assert keep_refined("refined", draft, refined, ranking)[0] is True
    assert keep_refined("support", draft, refined, ranking)[0] is True  # 0.9 support > 0.1
    tied = Result("Paris", avg_prob=0.95)  # neither supported: probability decides
    assert keep_refined("support", Candidate("Rome", 0.9), tied, ranking)[0] is True


def test_result_records_keep_each_stage_answer():
    events, *_ = run(None, relevance=FakeRelevance())
    example = QAExample(id="q1", question=QUESTION, answers=["Lagos"])
    record = make_record(example, events, 1.0)
    assert [(d["basis"], d["text"]) for d in record["drafts"]] == [("multi-hop", "Lagos"),
                                                                   ("refinement", "Lagos, Nigeria")]
    assert record["sub_answers"] == [["Who leads Project Heron?", "Mira Okafor"],
                                     ["Where was that leader born?", "Lagos"]]
    assert record["refeed"]["kept"] == "refined" and record["refeed"]["refined"]["text"] == "Lagos, Nigeria"
    assert isinstance(events[-1], Answer)


def test_ra_isf_writes_earlier_sub_answers_into_later_sub_questions():
    subs = {QUESTION: ["Who leads Project Heron?", "Where was #1 born?"]}
    reader = reader_for({**ANSWERS, "Where was Mira Okafor born?": "Lagos"})
    judge = FakeJudge(relevant=lambda q, text: q != QUESTION, decompose=subs)
    ctx = make_context(reader=reader, judge=judge, retriever=WordRetriever(CORPUS))
    events = list(run_question(QUESTION, "ra-isf:self_knowledge=false", ctx))
    assert [e.question for e in events if isinstance(e, SubQuestion)] == ["Who leads Project Heron?",
                                                                          "Where was Mira Okafor born?"]
    assert events[-1].resolved_by == "decomposition"
