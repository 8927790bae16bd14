"""Fitting retrieved passages into the reader's context: trim, never refuse.

A prompt that does not fit the reader's context would fail the whole question ("prompt of 36143
tokens does not fit"), whatever passage caused it. Instead the passages are shortened, then the
lowest-ranked ones dropped, until the prompt and the answer fit; the caller says so in a Note.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Sequence

from models.errors import AssistantError

from ..events.core import Passage
from .settings import ANSWERING

PromptBuilder = Callable[[Sequence[Passage]], list]


@dataclass
class Fit:
    messages: list
    passages: list[Passage]
    note: str = ""  # what was trimmed, for the trace; empty when everything fitted
    dropped: list[Passage] = field(default_factory=list)


def _cut(passages: Sequence[Passage], chars: int | None) -> list[Passage]:
    if chars is None:
        return list(passages)
    return [p if len(p.text) <= chars else dataclasses.replace(p, text=p.text[:chars].rstrip() + " …")
            for p in passages]


def fit_passages(reader, build: PromptBuilder, passages: Sequence[Passage], answer_tokens: int) -> Fit:
    """build(passages) trimmed so that its tokens plus `answer_tokens` fit `reader.n_ctx`."""
    n_ctx = getattr(reader, "n_ctx", None)
    count = getattr(reader, "prompt_tokens", None)
    passages = list(passages)
    messages = build(passages)
    if not n_ctx or count is None:  # a reader that cannot count (test fakes): nothing to fit
        return Fit(messages, passages)
    budget = n_ctx - min(answer_tokens, n_ctx // ANSWERING.answer_room_divisor) - ANSWERING.safety_tokens

    def fits(candidate: list[Passage]) -> bool:
        return len(count(build(candidate))) <= budget

    if fits(passages):
        return Fit(messages, passages)
    longest = max((len(p.text) for p in passages), default=0)
    for n in range(len(passages), 0, -1):
        floor = ANSWERING.min_passage_chars if n > 1 else 1
        chars = _largest_cap(lambda c: fits(_cut(passages[:n], c)), floor, longest)
        if chars is not None:
            kept = _cut(passages[:n], chars)
            cut = sum(len(p.text) > chars for p in passages[:n])
            parts = []
            if n < len(passages):
                parts.append(f"kept {n} of {len(passages)} passages")
            if cut:
                parts.append(f"shortened {cut} to {chars} characters")
            note = f"{' and '.join(parts)} to fit the reader's context of {n_ctx} tokens"
            return Fit(build(kept), kept, note, dropped=passages[n:])
    if fits([]):
        return Fit(build([]), [], f"no passage fits the reader's context of {n_ctx} tokens", passages)
    raise AssistantError(f"the question is too long for the reader's context of {n_ctx} tokens; "
                         "shorten it or raise n_ctx")


def _largest_cap(ok: Callable[[int], bool], low: int, high: int) -> int | None:
    """The largest character cap in [low, high] that `ok` accepts (monotone), or None."""
    if high < low or not ok(low):
        return None
    while low < high:
        mid = (low + high + 1) // 2
        if ok(mid):
            low = mid
        else:
            high = mid - 1
    return low
