"""The profile for encyclopedia pages (a Wikipedia dump), and for passage files and datasets, which
are read the same way: questions that often need two pages, whose titles name their subjects.

1. self-knowledge (RA-ISF): answer closed-book when the reader is sure of its own answer (then look
   the answer up, so the grounding check can cite what backs it);
2. retrieve a wide pool and let the trained judge rank it (RA-ISF's relevance step), the read set
   picked hop by hop between page titles (chain=true, assistant/retrieval/chain_read.py);
3. sufficiency: the judge's scores say whether the top passages hold all the support. If they do,
   the reader answers from them in one call; if not, or if that answer is "unknown",
4. the missing hop (assistant/answering/hops.py): sub-questions answered in order, each searched
   with the earlier sub-answers filled in; then everything found ranked against the question and
   the final answer read from its top (hop_read=union), or from the first hop's top and each
   sub-question's new passages (hop_read=first). The (sub-question, sub-answer) pairs go into
   that prompt only with hop_facts=true: on training questions a wrong sub-answer misled the
   reader more often than a right one helped it;
5. ReFeed: search with question + answer; the reader refines when that brings new passages;
6. every registered answer check (a bare yes/no against the reader's lean; a pick between two
   options by their pages' dates; a yes/no about nationality by their pages' openings);
7. grounding (run by the runner through `ground`): the trained check cites, for each sentence,
   the passages supporting it; a pick or a chain's last step is "pieced together".
"""
from __future__ import annotations

from dataclasses import replace

from ..answering import prompts
from ..answering.generate import StrategyRun, generate_answer
from ..answering.hops import add_new, follow_hops, is_unknown
from ..checks.base import AnswerCheck
from ..context import Result
from ..grounding.citations import Attribution
from ..grounding.pieced import label_pieced
from ..grounding.verdict import GroundingRule, ground
from ..retrieval.chain_read import chain_read_set
from ..retrieval.rerank import Ranked, judge_union
from .base import Profile, QuestionRun, from_memory
from .settings import PAGES
from .stages import answer_checks, memory_gate, refeed_check, search_and_judge


class EncyclopediaPages(Profile):
    name = "pages"
    sources = "a Wikipedia dump, passage files or a dataset"

    def answer(self, run: QuestionRun) -> StrategyRun:
        answer = yield from self._answer(run)
        return (yield from answer_checks(run, answer, self.suits))

    def suits(self, check: AnswerCheck) -> bool:
        return True  # every check was made for such pages

    def ground(self, run: QuestionRun, text: str, result: Result, rule: GroundingRule) -> Attribution:
        checked = ground(text, run.question, result.citations, rule, from_memory=from_memory(result))
        return label_pieced(checked, run.question, text, result.resolved_by)

    def _answer(self, run: QuestionRun) -> StrategyRun:
        opts, ctx, question = run.opts, run.ctx, run.question
        known = yield from memory_gate(run, "Can the reader answer from memory? (RA-ISF)")
        if known is not None:
            if opts.ground and opts.memory_check and ctx.retriever is not None:
                known = yield from self._look_up_memory(run, known)
            return known
        stage = run.stage("retrieve", "Look up passages and let the judge rank them (RA-ISF)", strategy="ra-isf")
        yield stage
        ranking = yield from self._first_hop(run, question, stage.step)
        sufficient = self._sufficient(run, ranking)
        answer = None
        if opts.hop == "never" or (opts.hop == "auto" and sufficient is not False):
            answer = yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                                "passages", citations=ranking.kept, parent=stage.step)
        if answer is None or (opts.hop == "auto" and is_unknown(answer.text)):
            answer = yield from self._missing_hop(run, ranking, answer)
        return (yield from refeed_check(run, answer))

    def _look_up_memory(self, run: QuestionRun, known: Result) -> StrategyRun:
        """A search with the question, so the grounding check can tell whether the documents back
        the answer from memory (then it cites them) or not (then it stays labelled from memory).
        No reader call: the answer is never changed."""
        stage = run.stage("memory check", "Look the answer from memory up in your documents", strategy="ra-isf")
        yield stage
        passages = yield from run.ctx.retrieve(run.question, parent=stage.step)
        return replace(known, citations=list(passages))

    def _first_hop(self, run: QuestionRun, question: str, parent: int):
        ranking, _, judged = yield from search_and_judge(run, question, parent)
        if judged and run.opts.chain:  # bridges between article titles
            ranking = yield from chain_read_set(run.ctx, question, ranking, parent=parent)
        return ranking

    def _sufficient(self, run: QuestionRun, ranking: Ranked) -> bool | None:
        """Whether the judge finds all the support among the kept passages; None when it cannot say
        (no trained judge, or one without a sufficiency threshold): then only "unknown" hops."""
        sufficiency = getattr(run.ctx.relevance, "sufficiency", None) if run.opts.relevance else None
        if sufficiency is None or not ranking.scores:
            return None
        rank, cut = sufficiency
        return ranking.support(rank) >= cut

    def _missing_hop(self, run: QuestionRun, ranking: Ranked, first: Result | None) -> StrategyRun:
        opts, ctx, question = run.opts, run.ctx, run.question
        why = ("the first answer was unknown" if first is not None
               else "the judge finds the support short" if opts.hop == "auto" else "hop=always")
        stage = run.stage("hop", f"Find the missing hop, since {why}: split the question, look up each part "
                          "(RA-ISF)", strategy="ra-isf", why=why)
        yield stage
        hops = yield from follow_hops(question, ctx, parent=stage.step)
        if not hops.pairs:
            if first is not None:
                return first
            return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                               "passages", citations=ranking.kept, parent=stage.step))
        union = opts.hop_read == "union" and bool(ranking.pool)  # a judged first hop to rank with
        summary = ("Rank everything found against the question; answer from its top" if union
                   else "Answer from both hops' passages")
        summary += " and the parts' answers" if opts.hop_facts else ""
        stage = run.stage("multi-hop answer", summary, strategy="ra-isf")
        yield stage
        if union:
            everything = yield from judge_union(ctx, question, ranking, hops.searches, parent=stage.step)
            passages = everything.pool[:PAGES.union_read]
            if opts.chain:  # the same number, picked hop by hop from everything found
                chained = yield from chain_read_set(ctx, question, replace(everything, kept=passages), stage.step)
                passages = chained.kept
        else:
            passages = add_new(list(ranking.kept[:PAGES.first_hop_carried]), hops.passages)
        facts = hops.pairs if opts.hop_facts else ()
        return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps, facts=facts),
                                           question, "multi-hop", citations=passages, parent=stage.step))
