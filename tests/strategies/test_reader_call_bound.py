"""The per-question bound on reader calls (settings.max_reader_calls), with fake models.

Every strategy, stopped one call short of what it needs, still ends with an answer, stays within
the bound and says in a note that the bound was hit; `ask --trace` shows that note.
"""
import os

import pytest
from typer.testing import CliRunner

from assistant.context import RunContext
from assistant.events.core import Answer, Note
from assistant.runner import run_question
from assistant.strategies import STRATEGIES

from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

CORPUS = {f"p{i}": f"passage number {i}" for i in range(8)}
QUESTION = "Where was the leader of Project Heron born?"


def bound_notes(events):
    return [e for e in events if isinstance(e, Note) and "reader-call bound" in e.message]


def run(strategy, **settings):
    reader = FakeReader(lambda prompt: "Lagos")
    judge = FakeJudge(relevant=lambda q, text: text.endswith("1"))
    bound = settings.pop("max_reader_calls", None)
    ctx = make_context(reader=reader, judge=judge, retriever=FakeRetriever(CORPUS), **settings)
    if bound is not None:  # set past the settings' check: one call short of one call is 0, below its range
        object.__setattr__(ctx.settings, "max_reader_calls", bound)
    return list(run_question(QUESTION, strategy, ctx))


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_one_call_short_still_answers_with_a_note(strategy):
    needed = run(strategy)[-1].counts["reader_calls"]
    assert needed >= 1
    events = run(strategy, max_reader_calls=needed - 1)
    answer = events[-1]
    assert isinstance(answer, Answer) and answer.text
    assert answer.counts["reader_calls"] <= needed - 1
    assert bound_notes(events), [e for e in events if isinstance(e, Note)]


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_a_generous_bound_changes_nothing(strategy):
    free = run(strategy)
    bounded = run(strategy, max_reader_calls=free[-1].counts["reader_calls"])
    assert not bound_notes(bounded)
    assert bounded[-1].text == free[-1].text and bounded[-1].counts == free[-1].counts


def test_ask_trace_shows_the_bound_from_the_environment(monkeypatch, tmp_path):
    from assistant import runner
    from assistant.cli.main import app

    contexts = []

    def fake_context(settings, strategy):
        def reply(prompt):  # a query for refinement prompts, an answer otherwise
            return "Mira Okafor birthplace" if "search query" in prompt else "Lagos"

        ctx = RunContext(settings=settings, reader=FakeReader(reply), judge=FakeJudge(),
                         retriever=FakeRetriever(CORPUS))
        contexts.append(ctx)
        return ctx

    monkeypatch.setattr(runner, "build_context", fake_context)
    monkeypatch.setenv("ASSISTANT_CONFIG", os.devnull)
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ASSISTANT_MAX_READER_CALLS", "3")
    result = CliRunner().invoke(app, ["ask", QUESTION, "--strategy", "rq-rag", "--trace"])
    assert result.exit_code == 0, result.output
    assert contexts[0].settings.max_reader_calls == 3
    assert "Note: Reader-call bound of 3 reached" in result.output
    assert "Lagos" in result.output.rsplit("note:", 1)[-1]  # the answer still comes, after the note
    assert contexts[0].reader.stats.calls == 3
