"""Answer generation: run the reader on an answer prompt, stream its tokens, clean its answer.

Below the strategies and the missing hop (assistant/answering/hops.py), which both call it.
"""
from __future__ import annotations

import re
from typing import Generator, Sequence

from .answer_options import with_instructions
from ..context import Result, RunContext
from ..events.core import Draft, Event, Note, Passage, Reading, Token, shown
from .prompt_fit import PromptBuilder, fit_passages
from .settings import ANSWERING

StrategyRun = Generator[Event, None, Result]  # what a strategy (or a step of one) yields and returns


# "Answer:", and the sentence frames small readers put around a short answer ("The answer to
# this question is: X"), which cost them every exact match.
_PREFIX = re.compile(r"^\s*(?:the\s+)?(?:final\s+|short\s+)?answer(?:\s+to\s+(?:this|the|your)\s+question)?"
                     r"(?:\s*[:\-]|\s+is\b\s*:?)\s*", re.I)


def clean_answer(text: str, whole: bool = False) -> str:
    """The first non-empty line, without an 'Answer:' label or a 'The answer is' frame; `whole`:
    the lines after it too (a caller asked for a form, such as a list, that takes several)."""
    lines = text.strip().splitlines()
    for n, line in enumerate(lines):
        line = _PREFIX.sub("", line).strip()
        if line:
            return "\n".join([line, *lines[n + 1:]]).rstrip() if whole else line
    return text.strip()


def generate_answer(ctx: RunContext, messages: list[dict] | PromptBuilder, question: str, basis: str,
                    citations: Sequence[Passage] = (), parent: int | None = None, depth: int = 0,
                    stream: bool = True) -> StrategyRun:
    """Run the reader on an answer prompt, streaming Token events, then a Draft event.

    `messages` may be a function of the passages (`citations`): the passages are then trimmed
    to fit the reader's context, and only those the reader saw are cited."""
    ctx.check_budget()
    wished = ctx.answer_options if depth == 0 else None  # the caller's wishes: the answer they read
    max_tokens, kwargs = ctx.settings.max_answer_tokens, {}
    if wished is not None:
        room = getattr(ctx.reader, "n_ctx", None) or ANSWERING.room_unknown
        max_tokens, kwargs = wished.tokens(room), wished.reader_kwargs
        messages = _instructed(messages, wished.instructions)
    if callable(messages):
        fit = fit_passages(ctx.reader, messages, citations, max_tokens)
        if fit.note:
            yield Note(step=ctx.step(), parent=parent, depth=depth, message=fit.note)
        messages, citations = fit.messages, fit.passages
    step = ctx.step()
    yield Reading(step=step, parent=parent, depth=depth, question=question, passages=[p.id for p in citations])
    generation = None
    for piece in ctx.reader.stream(messages, max_tokens=max_tokens, **kwargs):
        if isinstance(piece, str):
            if stream and piece:
                yield Token(step=step, parent=parent, depth=depth, text=piece)
        else:
            generation = piece
    if depth == 0:
        ctx.answer_finish = generation.finish
    text = clean_answer(generation.text, whole=bool(wished and wished.instructions))
    yield Draft(step=step, parent=parent, depth=depth, question=question, text=text, basis=basis,
                citations=[p.id for p in citations], avg_prob=shown(generation.avg_prob))
    return Result(text=text, citations=list(citations), resolved_by=basis, avg_prob=generation.avg_prob)


def _instructed(messages, instructions: str):
    if not instructions:
        return messages
    if callable(messages):
        return lambda passages: with_instructions(messages(passages), instructions)
    return with_instructions(messages, instructions)
