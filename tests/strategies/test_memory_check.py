"""An answer from the reader's memory is looked up in the documents (the memory_check option): where
the grounding check finds it supported it cites them, said to come from memory; else it stays
labelled "from memory", uncited (issue 30)."""
from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

from assistant.events.core import Answer, Passage
from assistant.grounding.verdict import MEMORY, MEMORY_AGREES, SUPPORTED, ground
from assistant.runner import run_question
from assistant.strategies import make_strategy
from research.evaluation.support import SupportHidden

QUESTION = "Who leads Project Otter?"
OTTER = "Project Otter films kelp forests along the coast. Project Otter is led by Tomas Lindqvist."
HERON = "Project Heron builds birdwatching kits for schools. Project Heron is led by Mira Okafor."


class TitledRetriever(FakeRetriever):
    """The fake retriever with titles as an index gives them ("Project Otter")."""

    def __init__(self, texts):
        super().__init__(texts)
        self.passages = [Passage(p.id, p.text, p.id.replace("_", " "), path=p.path) for p in self.passages]


def ask(corpus, spec="default:refine=false", answer="Tomas Lindqvist", **settings):
    ctx = make_context(reader=FakeReader(lambda prompt: answer, prob=0.9), judge=FakeJudge(knows=lambda q: True),
                       retriever=TitledRetriever(corpus), **settings)
    events = list(run_question(QUESTION, spec, ctx))
    return events[-1], ctx


def test_a_memory_answer_the_documents_back_cites_them():
    answer, ctx = ask({"Project_Otter": OTTER, "Project_Heron": HERON})
    assert isinstance(answer, Answer) and answer.resolved_by == "self-knowledge"
    assert answer.grounding == SUPPORTED and [p.id for p in answer.citations] == ["Project_Otter"]
    assert answer.marked_text == f"{MEMORY_AGREES} Tomas Lindqvist [1]"
    assert ctx.retriever.queries == [QUESTION]


def test_a_memory_answer_the_documents_do_not_back_stays_labelled_from_memory():
    wrong, _ = ask({"Project_Otter": OTTER, "Project_Heron": HERON}, answer="Mira Okafor")
    assert wrong.grounding == MEMORY and wrong.citations == []
    assert wrong.marked_text.startswith("From the reader's memory, not from your documents")
    elsewhere, _ = ask({"Project_Heron": HERON})  # the documents do not hold Otter's page at all
    assert elsewhere.grounding == MEMORY and elsewhere.citations == []


def test_the_support_hidden_leaves_a_memory_answer_uncited():
    corpus = TitledRetriever({"Project_Otter": OTTER, "Project_Heron": HERON})
    hidden = SupportHidden(corpus, lambda passage: passage.id == "Project_Otter")  # as `eval --drop-support` does
    ctx = make_context(reader=FakeReader(lambda prompt: "Tomas Lindqvist", prob=0.9),
                       judge=FakeJudge(knows=lambda q: True), retriever=hidden)
    answer = list(run_question(QUESTION, "default:refine=false", ctx))[-1]
    assert answer.grounding == MEMORY and answer.citations == [] and answer.passages_read == ["Project_Heron"]


def test_without_the_check_a_memory_answer_is_never_looked_up():
    answer, ctx = ask({"Project_Otter": OTTER}, spec="default:refine=false,memory_check=false")
    assert answer.grounding == MEMORY and answer.citations == [] and ctx.retriever.queries == []
    assert make_strategy("default").opts.memory_check is True
    # the check itself: nothing given, nothing checked
    rule = make_strategy("default").grounding
    assert ground("Tomas Lindqvist", QUESTION, [], rule, from_memory=True).grounding == MEMORY


def test_the_labs_lookup_of_recorded_memory_answers_searches_as_the_pipeline_does():
    from lab.memory_lookup import searched

    corpus = TitledRetriever({"Project_Otter": OTTER, "Project_Heron": HERON})
    ctx = make_context(retriever=corpus)
    assert [p.id for p in searched(ctx, QUESTION)] == ["Project_Otter", "Project_Heron"]
    ctx.retriever = SupportHidden(corpus, lambda passage: passage.id == "Project_Otter")
    assert [p.id for p in searched(ctx, QUESTION)] == ["Project_Heron"] and ctx.retrievals == 2


def test_the_answer_block_says_the_passages_were_found_to_check_a_memory_answer():
    from assistant.cli.render import answer_block

    wrong, _ = ask({"Project_Heron": HERON}, answer="Mira Okafor")
    assert "none of the 1 passages found to check it holds this answer" in answer_block(wrong)
