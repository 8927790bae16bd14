"""Evaluation: metrics against hand-computed cases, every loader on real records, and the harness
(resumable results, settings guard, summary) with fake models."""
import json
from pathlib import Path

import pytest

from research.evaluation import metrics
from index_builder.datasets import YES_NO, load_dataset
from research.evaluation.harness import RunPlan, run_strategy, split_specs
from research.evaluation.report import em_wins_losses, markdown_report, percentile
from research.evaluation.results import ResultsFile
from models.config import Settings
from models.errors import AssistantError

from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="shared/data is not beside the checkout")


# -- metrics -------------------------------------------------------------------------------

def test_normalisation_follows_squad():
    assert metrics.squad_normalize("The  Eiffel-Tower!") == "eiffeltower"
    assert metrics.squad_normalize("An apple, a pear and THE plum.") == "apple pear and plum"


def test_exact_match_is_best_over_aliases():
    assert metrics.exact_match("the Eiffel Tower", ["Eiffel Tower"]) == 1.0
    assert metrics.exact_match("Eiffel Tower, Paris", ["Eiffel Tower"]) == 0.0
    assert metrics.exact_match("NYC", ["New York City", "nyc"]) == 1.0


def test_token_f1_by_hand():
    # prediction 4 tokens, gold 2, overlap 2: P = 1/2, R = 1, F1 = 2/3
    assert metrics.f1("Eiffel tower in Paris", ["Eiffel Tower"]) == pytest.approx(2 / 3)
    # best alias: "new york" gives P = 2/3, R = 1, F1 = 0.8; "NYC" gives 0
    assert metrics.f1("New York City", ["NYC", "New York"]) == pytest.approx(0.8)
    # articles are dropped before counting: pred [b], gold [b, c]: P = 1, R = 1/2, F1 = 2/3
    assert metrics.f1("a a b", ["b c"]) == pytest.approx(2 / 3)
    assert metrics.f1("", ["x"]) == 0.0


def test_substring_and_yes_no():
    assert metrics.substring_match("He was born in Paris, France.", ["paris"]) == 1.0
    assert metrics.substring_match("He was born in Parisville.", ["Paris"]) == 0.0  # word boundaries
    assert metrics.yes_no_accuracy("Yes, they both are.", ["yes"]) == 1.0
    assert metrics.yes_no_accuracy("No.", ["yes"]) == 0.0
    assert metrics.yes_no_accuracy("It is unclear", ["no"]) == 0.0
    scores = metrics.score("yes", ["yes"], YES_NO)
    assert scores == {"em": 1.0, "f1": 1.0, "substring": 1.0, "acc": 1.0}


def test_em_wins_and_losses_are_counted_question_by_question():
    def rec(em):
        return {"scores": {"em": em}}

    strategy = {"a": rec(1.0), "b": rec(0.0), "c": rec(1.0), "d": rec(1.0)}
    baseline = {"a": rec(0.0), "b": rec(1.0), "c": rec(1.0), "x": rec(0.0)}
    # d has no baseline answer and x no strategy answer: only a, b, c are compared
    assert em_wins_losses(strategy, baseline) == (1, 1, 3)


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert percentile([5], 95) == 5 and percentile([], 50) == 0.0


# -- loaders --------------------------------------------------------------------------------

LOADER_CASES = [
    # (file under shared/data, whether its records carry paragraphs)
    ("hotpotqa/hotpotqa_dev_distractor_500.ircot_format.jsonl", True),
    ("hotpotqa/hotpotqa_dev_distractor_200.migres.jsonl", True),
    ("hotpotqa/hotpot_dev_distractor_v1.first100.json", True),
    ("musique/musique_ans_dev_100.kag.json", True),
    ("2wikimultihopqa/2wikimultihopqa_dev_200.migres.jsonl", True),
    ("2wikimultihopqa/2wikimultihopqa_dev_first1000_qa.trustmargin.json", False),
    ("nq_open/NQ-open.dev.jsonl", False),
    ("triviaqa/topics.dpr.trivia.test.txt", False),
    ("triviaqa/triviaqa_test_1000.ctrla.jsonl", False),
    ("popqa/popqa_longtail_1399.ctrla.jsonl", False),
    ("webquestions/webquestions_main_test.json", False),
    ("strategyqa/strategyqa_dev.json", False),
]


@needs_data
@pytest.mark.parametrize("name,with_paragraphs", LOADER_CASES)
def test_each_loader_reads_a_few_records(name, with_paragraphs):
    examples = load_dataset(DATA / name, limit=3)
    assert len(examples) == 3
    assert len({e.id for e in examples}) == 3
    for e in examples:
        assert e.question.strip() and e.answers and all(a.strip() for a in e.answers)
        assert bool(e.paragraphs) == with_paragraphs
        if with_paragraphs:
            assert all(p.title and p.text for p in e.paragraphs)


@needs_data
def test_loader_fields_match_the_files():
    hotpot = load_dataset(DATA / "hotpotqa/hotpotqa_dev_distractor_500.ircot_format.jsonl", limit=1)[0]
    raw = json.loads((DATA / "hotpotqa/hotpotqa_dev_distractor_500.ircot_format.jsonl").open().readline())
    assert hotpot.id == raw["question_id"] and hotpot.question == raw["question_text"]
    assert hotpot.answers == raw["answers_objects"][0]["spans"]
    assert sum(bool(p.is_supporting) for p in hotpot.paragraphs) == 2
    musique = load_dataset(DATA / "musique/musique_ans_dev_100.kag.json", limit=1)[0]
    assert len(musique.sub_questions) >= 2 and len(musique.paragraphs) == 20
    trivia = load_dataset(DATA / "triviaqa/topics.dpr.trivia.test.txt", limit=1)[0]
    assert trivia.question == "Who was the man behind The Chipmunks?" and trivia.answers == ["David Seville"]
    strategy = load_dataset(DATA / "strategyqa/strategyqa_dev.json", limit=1)[0]
    assert strategy.kind == YES_NO and strategy.answers == ["no"]


def test_bad_dataset_files_are_one_clear_error(tmp_path):
    with pytest.raises(AssistantError, match="no such dataset"):
        load_dataset(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(AssistantError, match="empty"):
        load_dataset(empty)
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"foo": 1}\n')
    with pytest.raises(AssistantError, match="unknown dataset format"):
        load_dataset(odd)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": "q", "answer": "a"}\n{not json\n')
    with pytest.raises(AssistantError, match="line 2"):
        load_dataset(broken)


# -- harness --------------------------------------------------------------------------------

def test_split_specs_keeps_options_with_their_strategy():
    assert split_specs("direct,rag,ra-isf:depth=1,relevance=false") == ["direct", "rag",
                                                                       "ra-isf:depth=1,relevance=false"]
    with pytest.raises(AssistantError):
        split_specs("direct,magic")


def _dataset(tmp_path) -> Path:
    rows = [{"question": "Who leads Project Heron?", "answer": ["Mira Okafor"], "id": "q1"},
            {"question": "What does Otter film?", "answer": ["kelp forests"], "id": "q2"},
            {"question": "Capital of France?", "answer": ["Paris"], "id": "q3"}]
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_harness_scores_resumes_and_refuses_other_settings(tmp_path):
    answers = {"Who leads Project Heron?": "Mira Okafor", "What does Otter film?": "sea otters"}
    calls = []

    def factory(settings, strategy):
        reader = FakeReader(lambda prompt: next((a for q, a in answers.items() if q in prompt), "Paris"))
        retriever = FakeRetriever({"heron": "Project Heron is led by Mira Okafor"})
        calls.append(strategy.name)
        return make_context(reader=reader, judge=FakeJudge(relevant=lambda q, t: True), retriever=retriever)

    dataset = _dataset(tmp_path)
    examples = load_dataset(dataset)
    plan = RunPlan(dataset=dataset, out_dir=tmp_path / "out", settings=Settings(), corpus="idx",
                   reader_name="fake")
    summary = run_strategy("rag", examples[:2], plan, context_factory=factory)
    assert summary.n == 2 and summary.em == 50.0
    assert summary.per_question["retrievals"] == 1.0 and summary.resolved_by == {"passages": 100.0}

    # resume: only the third question runs; the first two are not asked again
    summary = run_strategy("rag", examples, plan, context_factory=factory)
    records = ResultsFile(plan.results_path("rag")).records
    assert summary.n == 3 and summary.em == pytest.approx(66.7) and len(records) == 3
    assert calls == ["rag", "rag"]
    assert records["q2"]["scores"]["f1"] == 0.0 and records["q2"]["path"] == ["retrieved 1"]

    # a killed run leaves a partial last line: it is dropped, the record is redone
    path = plan.results_path("rag")
    path.write_bytes(path.read_bytes() + b'{"id": "q4", "pred')
    assert set(ResultsFile(path).records) == {"q1", "q2", "q3"}

    other = RunPlan(dataset=dataset, out_dir=tmp_path / "out", settings=Settings(k=9), corpus="idx",
                    reader_name="fake")
    with pytest.raises(AssistantError, match="other settings"):
        run_strategy("rag", examples, other, context_factory=factory)

    report = markdown_report("tiny", [summary])
    assert "| rag | 3 | 66.7 |" in report


def test_strategy_needing_an_index_without_corpus_is_refused(tmp_path):
    dataset = _dataset(tmp_path)
    plan = RunPlan(dataset=dataset, out_dir=tmp_path / "out", settings=Settings(), corpus="none",
                   reader_name="fake")
    with pytest.raises(AssistantError, match="needs an index"):
        run_strategy("rag", load_dataset(dataset), plan, context_factory=lambda s, st: make_context())


def test_results_made_with_another_relevance_judge_are_not_mixed_in(tmp_path):
    """A strategy that reads the relevance judge records it (and the pool sizes) in its run's
    config; plain rag does not, so its results stay resumable whichever judge is set."""
    dataset = _dataset(tmp_path)
    examples = load_dataset(dataset)[:1]

    def plan(judge):
        return RunPlan(dataset=dataset, out_dir=tmp_path / "out", settings=Settings(relevance_judge=judge),
                       corpus="idx", reader_name="fake")

    def factory(settings, strategy):
        return make_context(reader=FakeReader(answer=lambda p: "x"), judge=FakeJudge(), retriever=FakeRetriever(
            {"a": "some passage"}))

    assert plan("trained").config("default:relevance=true")["relevance_judge"] == "trained"
    assert "relevance_judge" not in plan("trained").config("rag")
    run_strategy("ra-isf", examples, plan("judge"), context_factory=factory)
    with pytest.raises(AssistantError, match="other settings.*relevance_judge"):
        run_strategy("ra-isf", examples, plan("trained"), context_factory=factory)
    run_strategy("rag", examples, plan("judge"), context_factory=factory)
    run_strategy("rag", examples, plan("trained"), context_factory=factory)  # rag never reads it
