"""`ask --trace` reads in order: the steps (the judge's summary included), what the reader reads
with counts that agree, then the answer as it is written; while the reader reads, a line counts
the seconds."""
from __future__ import annotations

import io
import sys
import time

from assistant.cli import conversation
from assistant.cli.status_line import StatusLine
from assistant.events.core import Answer, Draft, Passage, Reading, Relevance, Retrieved, Started, Token

FOUND = [Passage(id=f"p{i}", text=f"text {i}", path=f"notes/{i}.md") for i in range(3)]


def _events():
    yield Started(step=1, question="How many rooms?", strategy="default")
    yield Retrieved(step=2, query="How many rooms?", passages=FOUND)
    yield Relevance(step=3, passage_id="p0", relevant=True, rank_after=1)
    yield Relevance(step=4, passage_id="p1", relevant=False, rank_after=2)
    yield Relevance(step=5, passage_id="p2", relevant=False, rank_after=3)
    yield Reading(step=6, question="How many rooms?", passages=["p0", "p2"])  # the search's best too
    yield Token(step=6, text="1")
    yield Token(step=6, text="0")
    yield Draft(step=6, question="How many rooms?", text="10", basis="passages", citations=["p0", "p2"])
    yield Answer(step=7, text="10", citations=[FOUND[0]])


def _on_a_terminal(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(out, "isatty", lambda: True, raising=False)
    return out


def test_the_trace_says_the_steps_then_the_answer_as_it_is_written(monkeypatch):
    out = _on_a_terminal(monkeypatch)
    conversation.show(_events(), trace=True, status=StatusLine(enabled=False))
    lines = out.getvalue().splitlines()
    kept = next(i for i, line in enumerate(lines) if line.startswith("Kept 1 of 3 passages"))
    reading = next(i for i, line in enumerate(lines) if line.startswith("Reading 2 passages"))
    writing = next(i for i, line in enumerate(lines) if line.startswith(conversation.WRITING))
    assert kept < reading < writing
    assert lines[writing] == conversation.WRITING + "10"  # the answer's words as a step, not a bare "10"
    assert "(the 1 kept and 1 more the search ranked first)" in lines[reading]  # counts that agree
    assert "notes/0.md" in lines[reading] and "notes/2.md" in lines[reading]
    assert lines[writing + 1].startswith("Answered from 2 ")


def test_while_the_reader_reads_a_line_counts_the_seconds():
    screen = io.StringIO()
    status = StatusLine(enabled=True, stream=screen, steps=False)  # as with --trace
    status.count_reading(Reading(step=1, passages=["p0"]))
    time.sleep(1.3)
    status.event(Token(step=1, text="Ada"))  # the first word ends it
    written = screen.getvalue()
    assert "reading… 1 s" in written
    assert written.endswith("\r\x1b[K")  # wiped before the answer's words
    time.sleep(1.1)
    assert screen.getvalue() == written  # and it stays stopped


def test_untraced_the_status_line_says_what_is_read_and_for_how_long():
    screen = io.StringIO()
    status = StatusLine(enabled=True, stream=screen)
    status.event(Reading(step=1, passages=[]))
    status.count_reading(Reading(step=1, passages=[]))
    time.sleep(1.3)
    status.stop_counting()
    assert "Writing the answer from the reader's memory 1 s" in screen.getvalue()
