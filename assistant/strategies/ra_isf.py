"""RA-ISF: self-knowledge -> retrieval -> relevance filter -> answer, else decompose and recurse.

Depth: the user's question is level 0, its sub-questions level 1, and so on. A question at a
level beyond `depth` (D_th) is not worked on: its sub-answer is "unknown".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from models.config import allowed

from ..answering import prompts
from ..context import Result, RunContext
from ..events.core import Decomposed, Note, Relevance, SelfKnowledge, SubAnswer, SubQuestion, shown
from ..answering.hops import fill_references
from ..retrieval.rerank import judge_pool
from ..answering.generate import StrategyRun, generate_answer
from .base import Strategy
from .options import Range, StrategyOptions

UNKNOWN = "unknown"


def judge_threshold(judge, task: str) -> float | None:
    """The score a judge's yes needs for `task` (knows, relevance), for the steps to show; None
    when the judge does not say."""
    value = getattr(judge, f"{task}_threshold", None)
    if value is None:
        value = getattr(getattr(judge, "calibration", None), f"{task}_threshold", None)
    return shown(value) if isinstance(value, (int, float)) else None


def self_knowledge(question: str, ctx: RunContext, level: int, parent: int | None) -> StrategyRun:
    """RA-ISF's gate: the closed-book answer when the judge says the reader knows, else None."""
    ctx.check_budget()
    judge = ctx.judge
    verdict = judge.knows(question)
    yield SelfKnowledge(step=ctx.step(), parent=parent, depth=level, question=question,
                        knows=verdict.yes, score=shown(verdict.score), judge=judge.name,
                        threshold=judge_threshold(judge, "knows"))
    if not verdict.yes:
        return None
    return (yield from generate_answer(ctx, prompts.closed_book(question), question, "self-knowledge",
                                       parent=parent, depth=level, stream=level == 0))


class RaIsf(Strategy):
    @dataclass(frozen=True)
    class Options(StrategyOptions):
        self_knowledge: bool = True
        relevance: bool = True
        decomposition: bool = True
        # unset: the `depth` setting, whose range it shares
        depth: Annotated[int | None, Range(allowed("depth").low, allowed("depth").high)] = None

    name = "ra-isf"

    @property
    def reads_relevance_judge(self) -> bool:
        return self.opts.relevance

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        bound = self.opts.depth if self.opts.depth is not None else ctx.settings.depth
        return (yield from self.solve(question, ctx, level=0, bound=bound, parent=None))

    def solve(self, question: str, ctx: RunContext, level: int, bound: int, parent: int | None) -> StrategyRun:
        judge = ctx.judge
        top = level == 0
        if self.opts.self_knowledge:
            known = yield from self_knowledge(question, ctx, level, parent)
            if known is not None:
                return known

        ranked = self.opts.relevance and ctx.relevance is not None  # the trained judge ranks a wide pool
        passages = yield from ctx.retrieve(question, k=ctx.settings.pool if ranked else None, parent=parent,
                                           depth=level)
        relevant = passages
        if ranked and passages:
            ranking = yield from judge_pool(ctx, question, passages, parent=parent, depth=level)
            passages = ranking.kept  # also what a fallback answer reads, not the whole pool
            relevant = passages if ranking.above_threshold else []
        elif self.opts.relevance and passages:
            ctx.check_budget()
            verdicts = judge.relevant(question, [p.text for p in passages])
            relevant = []
            for passage, verdict in zip(passages, verdicts):
                yield Relevance(step=ctx.step(), parent=parent, depth=level, question=question,
                                passage_id=passage.id, relevant=verdict.yes, score=shown(verdict.score),
                                judge=judge.name, threshold=judge_threshold(judge, "relevance"))
                if verdict.yes:
                    relevant.append(passage)
        if relevant:
            return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                               "passages", citations=relevant, parent=parent, depth=level,
                                               stream=top))

        sub_questions: list[str] = []
        if self.opts.decomposition:
            ctx.check_budget()
            sub_questions = judge.decompose(question)
            yield Decomposed(step=ctx.step(), parent=parent, depth=level, question=question,
                             sub_questions=sub_questions, judge=judge.name)
        if not sub_questions:
            why = "cannot decompose" if self.opts.decomposition else "decomposition is off"
            yield Note(step=ctx.step(), parent=parent, depth=level,
                       message=f"no relevant passage and {why}: answering from the retrieved passages")
            return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                               "fallback", citations=passages, parent=parent, depth=level,
                                               stream=top))

        pairs, citations = [], []
        for index, sub in enumerate(sub_questions):
            sub = fill_references(sub, pairs)  # "Where was #1 born?": the earlier answer written in
            ctx.sub_questions += 1
            node = ctx.step()
            yield SubQuestion(step=node, parent=parent, depth=level + 1, question=sub, index=index)
            if level + 1 > bound:
                sub_result = Result(UNKNOWN, resolved_by="depth-bound")
            else:
                sub_result = yield from self.solve(sub, ctx, level + 1, bound, parent=node)
            yield SubAnswer(step=ctx.step(), parent=node, depth=level + 1, question=sub,
                            answer=sub_result.text, resolved_by=sub_result.resolved_by)
            pairs.append((sub, sub_result.text))
            citations.extend(p for p in sub_result.citations if p.id not in {c.id for c in citations})
        result = yield from generate_answer(ctx, prompts.from_sub_answers(question, pairs), question,
                                            "decomposition", citations=citations, parent=parent, depth=level,
                                            stream=top)
        return result
