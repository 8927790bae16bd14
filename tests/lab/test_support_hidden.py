"""eval --drop-support's retriever (research/evaluation/support.py): a question's own support out of
every search, k passages still found, and nothing else of the wrapped retriever changed."""
from helpers.fakes import FakeRetriever, make_context

from assistant.retrieval.index_files import one_word_names_of
from index_builder.datasets import Paragraph, QAExample
from research.evaluation.support import HIDDEN_MARGIN, SupportHidden, hiding_support

TEXTS = {f"Page_{n}": f"Page {n} says {n}." for n in range(HIDDEN_MARGIN + 5)}


def test_a_search_goes_deeper_so_that_k_passages_remain_once_the_hidden_ones_are_out():
    corpus = FakeRetriever(TEXTS)
    hidden = SupportHidden(corpus, lambda p: p.id in ("Page_0", "Page_1", "Page_3"))
    assert [p.id for p in hidden.search("q", 3)] == ["Page_2", "Page_4", "Page_5"]
    assert [p.id for p in corpus.search("q", 3)] == ["Page_0", "Page_1", "Page_2"]  # the corpus itself unchanged
    ctx = make_context(retriever=hidden)
    found = list(ctx.retrieve("q", k=2))[0].passages
    assert [p.id for p in found] == ["Page_2", "Page_4"] and ctx.retrievals == 1


def test_what_the_answer_path_reads_or_keeps_on_the_retriever_is_the_wrapped_ones():
    corpus = FakeRetriever(TEXTS)
    corpus.store, corpus.one_word_names = object(), frozenset({"notes"})  # as a HybridRetriever has them
    hidden = SupportHidden(corpus, lambda p: False)
    assert hidden.store is corpus.store and one_word_names_of(hidden)() == {"notes"}
    hidden.one_word_names = frozenset({"later"})  # a cache set through the wrapper stays on the retriever
    assert corpus.one_word_names == {"later"} and "one_word_names" not in vars(hidden)
    assert hidden.queries is corpus.queries


def test_a_question_hides_its_own_supporting_paragraphs_only():
    example = QAExample("q1", "Who leads Project Otter?", ["Tomas"], paragraphs=[
        Paragraph("Page_2", "Page 2 says 2.", is_supporting=True), Paragraph("Page_4", "Page 4 says 4.", False)])
    hidden = hiding_support(FakeRetriever(TEXTS), example)
    assert [p.id for p in hidden.search("q", 3)] == ["Page_0", "Page_1", "Page_3"]
    assert hiding_support(None, example) is None
