"""What `ask` and `chat` share: a question's events from a running server or in this process,
the answer's tokens shown as they are generated (on a terminal), then the answer with sources."""
from __future__ import annotations

import json
import shutil
import sys
from typing import Iterator

import typer

from models.config import Settings

from ..events.details import QuestionRewritten
from ..events.core import Answer, Event, Token
from .open_source import linked, links_shown
from .render import TraceWriter, answer_block
from .status_line import StatusLine

WRITING = "Writing the answer: "  # the trace's label of the answer's tokens as they come


def question_events(question: str, strategy, spec: str, settings: Settings, thread: str | None = None,
                    local: bool = False, should_stop=None, context=None, server: str | None = None) -> Iterator[Event]:
    """Through a running `assistant serve` over the same index (its models are loaded; `server`:
    its URL when the caller already found it), unless `local` or the strategy carries flags a spec
    cannot say; else in this process (with the models in `context` when the caller loaded them,
    and stopping once should_stop() is true)."""
    if not local:
        from ..server.client import ask as remote_ask
        from ..server.client import running_server

        url = server or running_server(settings)
        if url:
            return remote_ask(url, question, spec, thread, settings.collection)
    from ..conversation import chat as chat_service

    return chat_service.ask(question, strategy, settings, thread=thread, should_stop=should_stop,
                            context_factory=(lambda *_: context) if context is not None else None)


class LiveTokens:
    """The top-level answer's tokens written as they come; wiped when the full answer (with its
    markers and sources) replaces them, unless trace lines were written in between. `label`
    starts their line (the trace's "Writing the answer: ", so that they read as a step)."""

    def __init__(self, enabled: bool, label: str = ""):
        self.enabled = enabled
        self.label = label
        self.step: int | None = None
        self.text = ""
        self.open = False  # a line of tokens not ended yet

    def token(self, event: Token) -> None:
        if not self.enabled or event.depth != 0 or (self.step is not None and event.step != self.step):
            return
        if not self.open:
            self.text = self.label
            sys.stdout.write(self.label)
        self.step = event.step
        self.text += event.text
        self.open = True
        sys.stdout.write(event.text)
        sys.stdout.flush()

    def end_line(self) -> None:
        """Before any other line: the tokens keep their line, and are not wiped later."""
        if self.open:
            sys.stdout.write("\n")
            self.open, self.text = False, ""

    def wipe(self) -> None:
        if not self.open:
            return
        width = max(20, shutil.get_terminal_size().columns)
        # rows above the cursor's: each written line takes one row per `width` characters
        rows = sum(max(1, -(-len(line) // width)) for line in self.text.split("\n")) - 1
        sys.stdout.write("\r" + (f"\x1b[{rows}A" if rows else "") + "\x1b[J")
        sys.stdout.flush()
        self.open, self.text = False, ""


def _echo_lines(lines: list[str], live: LiveTokens) -> None:
    if lines:
        live.end_line()
        for line in lines:
            typer.echo(line)


def status_line(trace: bool = False, as_json: bool = False) -> StatusLine:
    """The one-line status `show` keeps, already showing "Getting ready…" (on a terminal, untraced;
    traced, it only counts the seconds the reader reads)."""
    status = StatusLine(enabled=not as_json and sys.stderr.isatty(), steps=not trace)
    status.start()
    return status


def show(events: Iterator[Event], trace: bool = False, as_json: bool = False, full: bool = False,
         status: StatusLine | None = None) -> Answer | None:
    """Print a question's events as `ask` does (`full`: passages and scores too); the Answer back.
    `status`: a status line the caller showed before loading the models (else one starts here)."""
    steps = TraceWriter(full=full)
    live = LiveTokens(enabled=not as_json and sys.stdout.isatty(), label=WRITING if trace else "")
    status = status or status_line(trace, as_json)  # at once: loading the models can take a while
    answer = None
    try:
        for event in events:
            status.event(event)
            if as_json:
                if not isinstance(event, Token):
                    typer.echo(json.dumps(event.to_dict(), ensure_ascii=False))
                answer = event if isinstance(event, Answer) else answer
                continue
            if isinstance(event, Token):
                if trace and event.depth == 0 and not live.open:
                    _echo_lines(steps.pending(), live)  # "Kept 4 of 43 passages" before the answer
                live.token(event)
                continue
            lines = steps.lines(event)  # also notes whether a check changed the answer
            if isinstance(event, QuestionRewritten) and not trace:
                status.clear()
                typer.echo(f"({event.summary})")  # what was asked, when a follow-up was rewritten
            if trace:
                _echo_lines(lines, live)
            status.count_reading(event)  # after its line: the seconds the reader has been reading
            if isinstance(event, Answer):
                status.clear()
                live.wipe()
                if trace:
                    typer.echo("")
                typer.echo(answer_block(event, steps.narrator.revised, linked if links_shown() else None))
                answer = event

    finally:
        status.stop_counting()
        status.clear()  # an error's line starts on its own
    return answer
