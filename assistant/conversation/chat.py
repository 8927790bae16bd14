"""Questions in a conversation: a follow-up is rewritten to stand alone (its own step), answered
like any question through assistant.service, and the turn is added to its thread."""
from __future__ import annotations

from typing import Iterator, Sequence

from models.config import Settings

from .. import service
from ..events.details import QuestionRewritten
from ..events.core import Answer, Event
from .followup import rewrite
from ..strategies import Strategy, make_strategy
from .threads import Thread, ThreadStore, ThreadSummary, Turn


def threads(settings: Settings) -> ThreadStore:
    return ThreadStore(settings.data_dir, read_bytes=settings.thread_read_kb * 1024,
                       rotate_bytes=settings.thread_file_mb * 1024 * 1024)


def thread_list(settings: Settings) -> list[ThreadSummary]:
    """The saved threads, the most recent first, with turns and first question; a damaged one is
    listed with what is wrong (`damaged`), never raised: it spoils only itself."""
    return threads(settings).summaries()


def ask(question: str, strategy: Strategy | str, settings: Settings, thread: str | Thread | None = None,
        history: Sequence[Turn] = (), should_stop=None, context_factory=None,
        answer_options=None) -> Iterator[Event]:
    """The question's events (a QuestionRewritten first when it was a follow-up), the Answer
    last. `thread`: a saved thread's name (created on first use, the turn saved after the answer)
    or a Thread kept by the caller; `history`: earlier turns given by the caller instead. The
    Answer's counts include the rewrite's reader call and tokens (what the turn cost)."""
    strategy = make_strategy(strategy) if isinstance(strategy, str) else strategy
    store = threads(settings) if isinstance(thread, str) else None
    if store is not None:
        thread = store.load(thread, create=True)
    # The rewrite sees the turns saved when the question is asked. Another writer's turn (a second
    # `ask --thread`, `chat` beside it) that is saved while this question runs is not seen by it,
    # as the person asking had not seen it either; both turns are kept, in the order their
    # answers ended, and the next question sees them both.
    turns = list(thread.recent()) if thread is not None else list(history)
    ctx = service.prepare(settings, strategy, context_factory)
    standalone = question
    rewrite_usage: dict = {}
    if turns:
        before = ctx.reader.stats.snapshot()
        with ctx.reader.interruptible(should_stop):
            standalone = rewrite(ctx.reader, turns, question)
        rewrite_usage = ctx.reader.stats.since(before)
        yield QuestionRewritten(summary=f"Asked as: “{standalone}”" if standalone != question
                                else "The question stands alone; asked as it is",
                                question=question, standalone=standalone)
    for event in service.ask(standalone, strategy, settings, should_stop, context_factory=lambda *_: ctx,
                             answer_options=answer_options):
        if isinstance(event, Answer) and rewrite_usage:
            event.counts = _with_rewrite(event.counts, rewrite_usage)
        if isinstance(event, Answer) and thread is not None:
            turn = Turn.from_answer(question, standalone, event, strategy.name)
            thread.turns.append(turn)
            if store is not None:
                store.append(thread.name, turn)  # one line added under the thread's lock: no turn lost
        yield event


def _with_rewrite(counts: dict, usage: dict) -> dict:
    added = {"reader_calls": usage.get("calls", 0), **{k: usage.get(k, 0) for k in
                                                       ("prompt_tokens", "evaluated_tokens", "completion_tokens")}}
    return {**counts, **{k: counts.get(k, 0) + v for k, v in added.items() if k in counts}}
