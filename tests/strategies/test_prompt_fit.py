"""The answer prompt never overflows the reader's context: passages are trimmed, not refused."""
import pytest
from helpers.fakes import FakeReader, FakeRetriever, make_context

from assistant.events.core import Answer, Note, Passage
from assistant.answering.prompt_fit import fit_passages
from assistant.answering.prompts import from_passages
from assistant.runner import run_question
from models.errors import AssistantError


class WordCountingReader(FakeReader):
    """Counts one token per word of the prompt, in a context of n_ctx tokens."""

    def __init__(self, n_ctx):
        super().__init__()
        self.n_ctx = n_ctx

    def prompt_tokens(self, messages):
        return " ".join(m["content"] for m in messages).split()


def passages(n, words):
    return [Passage(id=f"p{i}", text=" ".join(f"w{i}x{j}" for j in range(words)), title=f"t{i}")
            for i in range(n)]


def test_a_prompt_that_fits_is_left_alone():
    reader = WordCountingReader(4096)
    ps = passages(3, 50)
    fit = fit_passages(reader, lambda p: from_passages("q?", p), ps, 96)
    assert fit.passages == ps and fit.note == ""


def test_long_passages_are_shortened_then_dropped_and_the_prompt_fits():
    reader = WordCountingReader(600)
    ps = passages(10, 200)  # ~2000 words against a 600-token context
    fit = fit_passages(reader, lambda p: from_passages("q?", p), ps, 96)
    assert len(reader.prompt_tokens(fit.messages)) + 96 <= 600
    assert fit.passages and fit.note and "600 tokens" in fit.note
    assert [p.id for p in fit.passages] == [p.id for p in ps[:len(fit.passages)]]  # best-ranked kept
    assert all(len(p.text) >= 300 for p in fit.passages[:-1] if len(fit.passages) > 1)


def test_a_question_longer_than_the_context_is_one_clear_error():
    reader = WordCountingReader(100)
    with pytest.raises(AssistantError, match="question is too long"):
        fit_passages(reader, lambda p: from_passages("word " * 500, p), passages(2, 10), 10)


def test_rag_answers_with_a_note_and_cites_only_what_the_reader_saw():
    reader = WordCountingReader(700)
    texts = {p.id: p.text for p in passages(10, 150)}
    ctx = make_context(reader=reader, retriever=FakeRetriever(texts), k=10)
    events = list(run_question("What is w1x1?", "rag", ctx))
    notes = [e for e in events if isinstance(e, Note)]
    answer = events[-1]
    assert isinstance(answer, Answer) and notes and "fit the reader's context" in notes[0].message
    assert 0 < len(answer.passages_read) < 10


@pytest.mark.real_models
def test_real_reader_with_a_small_context_answers_instead_of_refusing():
    """Before trimming: 'prompt of N tokens does not fit the reader's context of 512'."""
    from models import registry
    from models.config import Settings

    settings = Settings(n_ctx=512, n_threads=1, k=10)
    reader = registry.get_reader(settings)
    texts = {f"d{i}": ("Nebula station " + str(i) + " logs: " + "calibration " * 160) for i in range(10)}
    ctx = make_context(reader=reader, retriever=FakeRetriever(texts), k=10, n_ctx=512)
    answer = list(run_question("Which station logged calibration?", "rag", ctx))[-1]
    assert isinstance(answer, Answer) and answer.passages_read
