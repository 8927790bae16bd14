"""Stages both profiles run: RA-ISF's memory gate and its search ranked by the relevance judge,
ReFeed's check of an answer against a search with it, and the registered answer checks."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from models.errors import BudgetExceeded

from ..answering.generate import StrategyRun
from ..answering.origin import REFINED, Origin
from ..checks import CHECKS
from ..checks.base import AnswerCheck
from ..context import Result
from ..events.core import Note
from ..retrieval.rerank import Ranked, judge_pool
from .base import QuestionRun

# RA-ISF's gate and ReFeed's refinement are imported where they run: their modules belong to the
# strategies package, whose default strategy imports the profiles (a profile imported first
# would otherwise import itself half-made).


def memory_gate(run: QuestionRun, summary: str) -> StrategyRun:
    """RA-ISF's self-knowledge: the reader's closed-book answer when the judge says it knows, else
    None (no stage at all when the gate or memory answers are off)."""
    from ..strategies.ra_isf import self_knowledge

    if not (run.opts.self_knowledge and run.opts.memory):
        return None
    stage = run.stage("self-knowledge", summary, strategy="ra-isf")
    yield stage
    return (yield from self_knowledge(run.question, run.ctx, level=0, parent=stage.step))


def search_and_judge(run: QuestionRun, question: str, parent: int):
    """RA-ISF's retrieval and relevance steps: a wide pool ranked by the trained judge (without one,
    the top k as found). Returns (the ranking, the search's passages, whether the judge ranked)."""
    ctx = run.ctx
    judged = run.opts.relevance and ctx.relevance is not None
    passages = yield from ctx.retrieve(question, k=ctx.settings.pool if judged else None, parent=parent)
    if judged and passages:
        ranking = yield from judge_pool(ctx, question, passages, parent=parent)
        return ranking, passages, True
    return Ranked(kept=list(passages), above_threshold=len(passages)), passages, False


def refeed_check(run: QuestionRun, answer: Result) -> StrategyRun:
    """ReFeed: search with the question and the answer; when that brings passages the answer did
    not read, the reader refines it and the likelier of the two is kept."""
    from ..strategies.refeed import Candidate, refine

    if not run.opts.refine:
        return answer
    ctx = run.ctx
    stage = run.stage("refeed", "Check the answer against a look-up with it (ReFeed)", strategy="refeed",
                      draft=answer.text)
    yield stage
    draft = Candidate(answer.text, answer.avg_prob or 0.0, citations=answer.citations, basis=answer.resolved_by)
    try:
        final = yield from refine(run.question, [draft], ctx, keep=run.opts.keep, parent=stage.step,
                                  judged=run.opts.relevance, read=answer.citations)
    except BudgetExceeded as exc:
        yield Note(step=ctx.step(), parent=stage.step, message=f"{exc}; keeping the answer")
        return answer
    if final.resolved_by == "refinement":
        final = replace(final, resolved_by=str(Origin.parse(answer.resolved_by).turned(REFINED)))
    return final


def answer_checks(run: QuestionRun, answer: Result, suits: Callable[[AnswerCheck], bool]) -> StrategyRun:
    """The registered answer checks (assistant/checks/) that suit the documents, in order: each
    whose option is on and whose kind the question and answer are may decide the answer again."""
    for check in CHECKS:
        if not suits(check):
            continue
        pending = check.pending(run.question, answer, run.ctx) if getattr(run.opts, check.option) else None
        if pending is not None:
            stage = run.stage(check.stage, check.summary)
            yield stage
            answer = yield from check.decide(run.question, answer, pending, run.ctx, parent=stage.step)
    return answer
