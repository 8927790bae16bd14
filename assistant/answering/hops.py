"""Finding the missing hop of a multi-hop question: sub-questions answered in order, each searched
with the earlier sub-answers filled in.

A small reader given both supporting paragraphs of a two-hop question answers far more often right
than given only one (lab/notes/history.md, "Passages per question: k = 10 (Qwen)"). The second
paragraph often shares no word with the question: it is about the bridge entity, which only the
first hop names. So the question is split (RA-ISF's decomposition), and each later sub-question is
searched together with the answers found before it ("Where was the director of Jaws born?" +
"Steven Spielberg"), which puts the bridge entity into the search. Each sub-question's pool is
ranked by the trained judge against that sub-question, and its top passages join the passages the
final answer reads, with the (sub-question, sub-answer) pairs as facts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Generator, Sequence

from . import prompts
from .generate import generate_answer
from ..context import RunContext
from ..events.core import Decomposed, Event, Passage, SubAnswer, SubQuestion
from ..retrieval.rerank import judge_pool
from .settings import ANSWERING


@dataclass
class Hops:
    """What the sub-questions found: facts for the final prompt and the passages they rest on."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    searches: list[list[Passage]] = field(default_factory=list)  # each sub-question's search, as found


_REFERENCE = re.compile(r"#(\d+)")


def is_unknown(text: str) -> bool:
    """An empty answer, or the reader's "unknown" (the answer prompt asks for it when the passages
    do not hold the answer)."""
    return text.strip().strip(".").lower() in ("unknown", "")


def fill_references(sub_question: str, pairs: Sequence[tuple[str, str]]) -> str:
    """'Where was #1 born?' with the first sub-answer written in; a reference to an unknown or
    missing answer stays as it is."""
    def answer(match: re.Match) -> str:
        n = int(match.group(1))
        return pairs[n - 1][1].strip() if 1 <= n <= len(pairs) and not is_unknown(pairs[n - 1][1]) else match.group(0)
    return _REFERENCE.sub(answer, sub_question)


def bridged_query(sub_question: str, pairs: Sequence[tuple[str, str]]) -> str:
    """The search for a sub-question: its references filled in; when it names no reference (a
    decomposer that does not write them), the earlier known sub-answers are added instead."""
    if _REFERENCE.search(sub_question):
        return fill_references(sub_question, pairs)
    return " ".join([sub_question, *(a for _, a in pairs if not is_unknown(a))])


def add_new(passages: list[Passage], more: Sequence[Passage], limit: int | None = None) -> list[Passage]:
    """`passages` plus those of `more` not already in it, each once (at most `limit` of them)."""
    seen = {p.id for p in passages}
    added = []
    for p in more:
        if p.id not in seen:
            seen.add(p.id)
            added.append(p)
    return passages + added[:limit]


def follow_hops(question: str, ctx: RunContext, parent: int | None = None
                ) -> Generator[Event, None, Hops]:
    """Decompose `question`, answer the sub-questions in order, return what they found.

    No sub-questions (the reader could not split it) gives empty Hops: the caller answers from
    the first hop's passages as before."""
    ctx.check_budget()
    sub_questions = ctx.judge.decompose(question)[:ANSWERING.max_sub_questions]
    yield Decomposed(step=ctx.step(), parent=parent, depth=1, question=question,
                     sub_questions=sub_questions, judge=ctx.judge.name)
    hops = Hops()
    for index, written in enumerate(sub_questions):
        ctx.sub_questions += 1
        node = ctx.step()
        sub = fill_references(written, hops.pairs)  # what is asked, shown and answered
        yield SubQuestion(step=node, parent=parent, depth=1, question=sub, index=index)
        query = bridged_query(written, hops.pairs)
        pool = yield from ctx.retrieve(query, k=ctx.settings.pool if ctx.relevance else None, parent=node, depth=1)
        hops.searches.append(list(pool))
        if ctx.relevance is not None and pool:
            pool = (yield from judge_pool(ctx, query, pool, parent=node, depth=1)).kept
        read = pool[:ANSWERING.sub_passages]
        earlier = list(hops.pairs)
        result = yield from generate_answer(ctx, lambda ps: prompts.from_passages(sub, ps, facts=earlier), sub,
                                            "sub-question", citations=read, parent=node, depth=1, stream=False)
        yield SubAnswer(step=ctx.step(), parent=node, depth=1, question=sub, answer=result.text,
                        resolved_by=result.resolved_by)
        hops.pairs.append((sub, result.text))
        hops.passages = add_new(hops.passages, result.citations, ANSWERING.carried)
    return hops
