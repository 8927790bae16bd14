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
