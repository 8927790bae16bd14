"""Something on screen at once: `ask` without --trace shows what it is doing on one status line
(stderr, a terminal only), from before the models load until the answer starts to stream."""
from __future__ import annotations

import io
import sys

from assistant.cli import conversation
from assistant.cli.status_line import READY, StatusLine
from assistant.events.core import Answer, Passage, Retrieved, Started, Token


def _events(stream: io.StringIO, seen_before_first: list[str]):
    seen_before_first.append(stream.getvalue())  # what was on screen before anything was computed
    yield Started(step=1, question="Who leads Heron?", strategy="default")
    yield Retrieved(step=2, query="Who leads Heron?", passages=[Passage(id="a", text="x", path="notes/heron.md")])
    yield Token(step=3, text="Ada")
    yield Retrieved(step=4, query="after the answer started", passages=[])
    yield Answer(step=5, text="Ada")


def test_the_status_line_shows_at_once_then_each_step_until_the_answer(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(stream, "isatty", lambda: True, raising=False)
    before: list[str] = []
    answer = conversation.show(_events(stream, before))
    assert answer is not None and answer.text == "Ada"
    assert READY in before[0]
    written = stream.getvalue()
    assert "Looked up 1 passages for “Who leads Heron?”" in written
    assert "after the answer started" not in written  # the answer's line is left alone
    assert written.endswith("\r\x1b[K")  # wiped before the answer


def test_no_status_line_when_piped_or_traced():
    quiet = io.StringIO()
    line = StatusLine(enabled=False, stream=quiet)
    line.start()
    line.event(Retrieved(step=1, query="q", passages=[]))
    line.clear()
    assert quiet.getvalue() == ""


def _ask_on_a_terminal(monkeypatch, tmp_path, *flags):
    """`assistant ask` with fake models and stderr taken for a terminal: (the result, what the
    status line showed while the models loaded, all it wrote)."""
    import os

    from typer.testing import CliRunner

    from assistant import runner
    from assistant.cli.main import app
    from assistant.context import RunContext
    from helpers.fakes import FakeJudge, FakeReader, FakeRetriever

    screen = io.StringIO()

    def on_a_terminal(trace=False, as_json=False):  # CliRunner's stderr is no terminal
        line = StatusLine(enabled=not (trace or as_json), stream=screen)
        line.start()
        return line

    seen_while_loading = []

    def loading(settings, strategy):
        seen_while_loading.append(screen.getvalue())
        return RunContext(settings=settings, reader=FakeReader(lambda prompt: "Ada"), judge=FakeJudge(),
                          retriever=FakeRetriever({"heron": "Ada leads the Heron project."}))

    monkeypatch.setattr(conversation, "status_line", on_a_terminal)
    monkeypatch.setattr(runner, "build_context", loading)
    monkeypatch.setenv("ASSISTANT_CONFIG", os.devnull)
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["ask", "Who leads Heron?", "--strategy", "rag", "--local", *flags])
    assert result.exit_code == 0, result.output
    assert len(seen_while_loading) == 1
    return result, seen_while_loading[0], screen.getvalue()


def test_ask_shows_the_status_line_before_the_models_load(monkeypatch, tmp_path):
    """`ask` loads the models before its first event (seconds on a laptop): the line comes first."""
    result, while_loading, written = _ask_on_a_terminal(monkeypatch, tmp_path)
    assert READY in while_loading
    assert "Ada" in result.output
    assert written.endswith("\r\x1b[K")  # wiped before the answer


def test_with_trace_the_ready_line_shows_while_loading_then_goes(monkeypatch, tmp_path):
    """--trace prints each step on a line of its own; before the first, while the models load,
    "Getting ready…" is on the status line, and is wiped before the steps."""
    result, while_loading, written = _ask_on_a_terminal(monkeypatch, tmp_path, "--trace")
    assert READY in while_loading
    assert written == "\r\x1b[K" + READY + "\r\x1b[K"  # wiped before the first step's line
    assert "Question: Who leads Heron?" in result.output
