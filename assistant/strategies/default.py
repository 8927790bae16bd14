"""The default `ask` pipeline: RA-ISF's gate and judge, the missing hop when the support is short,
then ReFeed's check of the answer against a fresh search.

1. self-knowledge (RA-ISF): answer closed-book when the reader is sure of its own answer;
2. retrieve a wide pool and let the trained judge rank it (RA-ISF's relevance step);
3. sufficiency: the judge's scores say whether the top passages hold all the support. If they do,
   the reader answers from them (one call, a short prompt: plain RAG's cost or less); if not, or
   if that answer is "unknown",
4. the missing hop (assistant/answering/hops.py): sub-questions answered in order, each searched with the
   earlier sub-answers filled in; then everything any search found goes into one pool, ranked by
   the judge against the question itself, and the final answer reads its top passages
   (hop_read=union; hop_read=first: the first hop's top 3 and each sub-question's new top 2).
   With chain=true both read sets are picked hop by hop instead (assistant/retrieval/chain_read.py: each next
   passage given those kept, after a search with the question plus the kept passage) and read in
   hop order.
   The (sub-question, sub-answer) pairs go into that prompt only with hop_facts=true: on training
   questions a wrong sub-answer misled the reader more often than a right one helped it;
5. ReFeed: search with question + answer, judge that pool against the question; when it brings
   passages the answer did not read, the reader refines, and the likelier answer is kept;
6. the answer checks (assistant/checks/, in the order registered there): a bare "yes" or "no"
   decided again by the reader's own odds of yes over no against its measured lean to "yes"; a
   pick between two options by the dates their pages give ("Who was born first, A or B?"); a
   yes/no about two things' nationality by what their pages' openings say. Each is an option;
7. the grounding check (assistant/grounding/verdict.py, run by the runner): each sentence cites the passages
   the trained check finds supporting it (and a multi-hop answer its bridge); an answer nothing
   supports is labelled "not in your documents"; a memory answer is labelled as such
   (memory=false: no memory answers at all).

Each stage opens with a `pipeline.stage` step and its own steps hang below it. Every module is
an option, so each has its ablation row (EVALUATION.md).
"""
from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace
from typing import Annotated, Literal

from models.errors import BudgetExceeded

from ..answering import prompts
from ..folder.answers import answer_folder_question, folder_question
from ..answering.generate import StrategyRun, generate_answer
from ..answering.hops import add_new, follow_hops, is_unknown
from ..answering.origin import PARTS, REFINED, Origin
from ..answering.parts import Part, combined, parts_of
from ..checks import CHECKS
from ..context import Result, RunContext
from ..events.core import Note, SubAnswer, SubQuestion
from ..events.details import AnswerReread, PipelineStage
from ..grounding.documents import files_named, ground_documents, subject_of
from ..grounding.citations import LabelledResult
from ..grounding.documents_check import ReaderCheck, not_given, planned_claims, reader_threshold, reread_line
from ..grounding.verdict import SUPPORTED, UNSUPPORTED, GroundingRule
from ..retrieval.chain_read import chain_read_set
from ..retrieval.index_files import one_word_names_of
from ..retrieval.rerank import Ranked, judge_pool, judge_union
from .base import Strategy
from .options import Range, StrategyOptions
from .ra_isf import self_knowledge
from .refeed import Candidate, KeepRule, refine

FIRST_HOP_CARRIED = 3  # hop_read=first: first-hop passages the answer reads beside the sub-questions' ones
UNION_READ = 5  # hop_read=union: passages the answer reads from the top of everything found


SEARCH_KEPT = 2  # on a person's files: the plain search's best passages read beside the judge's


class DefaultPipeline(Strategy):
    @dataclass(frozen=True)
    class Options(StrategyOptions):
        self_knowledge: bool = True
        relevance: bool = True
        hop: Literal["auto", "always", "never"] = "auto"
        hop_read: Literal["union", "first"] = "union"
        hop_facts: bool = False
        chain: bool = True  # the read set picked hop by hop (assistant/retrieval/chain_read.py), in hop order
        refine: bool = True
        keep: KeepRule = "prob"
        # trust (assistant/grounding/verdict.py): cite by the trained check; label what nothing supports
        # "not in your documents"; allow answers from the reader's memory (labelled as such); let the
        # check also read claim and passage together with its small cross-encoder (off: it lost to
        # the word features on recorded answers to training questions, models/grounding_model/encoder)
        ground: bool = True
        honest: bool = True
        memory: bool = True
        memory_check: bool = True  # an answer from memory is looked up; the documents backing it are cited
        encoder: bool = False
        # the share (%) of the question's words, each weighed by its rarity (coverage), and of its
        # names and numbers (names: then also every name and number the answer states), that the
        # cited passages must hold together for the answer to be presented as supported; 0: off
        # (chosen on training questions: lab/notes/history.md "Question coverage", and "Trust: rare
        # words weigh more, a repeating page is not cited")
        coverage: Annotated[int, Range(0, 100)] = 65
        rarity: bool = True  # false: coverage counts every word of the question once
        repeats: bool = False  # true: also cite a page that adds no word of the question or answer
        compare: bool = True  # false: the pages a comparison names are held to coverage and links too
        names: Annotated[int, Range(0, 100)] = 75
        # a bare yes/no answer decided again by the reader's odds of yes over no against its
        # measured lean to yes (assistant/checks/yes_no.py; readers with no measured lean: no change)
        yes_no: bool = True
        # a pick between two options decided by the dates their pages give, when the question asks
        # which came first or last (assistant/checks/dated_choice.py)
        dates: bool = True
        # a yes/no about two things' nationality ("of the same nationality?", "both American?")
        # decided by the nationality their pages' openings give (assistant/checks/nationality.py)
        nationality: bool = True
        # on a person's own files (an index of folders and files only): answer from the first
        # search's passages with one reader call, the memory gate only after an unknown answer;
        # sub-questions only for a question of several parts (each part answered from its own
        # passages); ReFeed only for a draft its passages do not state; the chain read set, the
        # missing hop and the checks made for encyclopedic pages left out; the grounding check
        # made for such files (assistant/grounding/documents.py)
        documents: bool = True
        # on such files, a short answer the word check finds written in a cited passage is read
        # again by the reader, with the lines around it: supported only if they give it as the
        # answer (one short call per claim; assistant/grounding/documents_check.py)
        reread: bool = True

    name = "default"

    @classmethod
    def refeed_flags(cls, drafts: int | None, ensemble: bool) -> dict:
        """Its ReFeed step has one draft; --no-ensemble keeps the refinement (keep=refined)."""
        return ({"drafts": drafts} if drafts is not None else {}) | ({} if ensemble else {"keep": "refined"})

    @property
    def reads_relevance_judge(self) -> bool:
        return self.opts.relevance

    @property
    def grounds_documents(self) -> bool:
        return self.opts.documents

    @property
    def grounding(self) -> GroundingRule | None:
        if not self.opts.ground:
            return None
        return GroundingRule(self.opts.honest, self.opts.encoder, self.opts.coverage / 100, self.opts.names / 100,
                             self.opts.rarity, self.opts.repeats, self.opts.compare)

    def _on_files(self, ctx: RunContext) -> bool:
        """Whether documents mode applies: the option is on and every source searched is a person's files."""
        return self.opts.documents and ctx.documents

    @staticmethod
    def _stage(ctx: RunContext, numbers, module: str, summary: str, **fields) -> PipelineStage:
        """A stage step: numbered in the order shown (the hop's stages only when it runs)."""
        return PipelineStage(step=ctx.step(), summary=summary, stage=next(numbers), module=module, **fields)

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        numbers = itertools.count(1)
        documents = self._on_files(ctx)
        asked = folder_question(question) if documents else None
        if asked is not None:  # "which of my files mention X?": from the index's files, not five passages
            stage = self._stage(ctx, numbers, "folder", "Answer from what the index knows of your files")
            yield stage
            answer = yield from answer_folder_question(asked, ctx, parent=stage.step)
            if answer is not None:
                return answer  # with its own citations and label; no answer check applies
        answer = yield from self._answer(question, ctx, numbers)
        for check in CHECKS:
            if documents and check.suits != "any documents":
                continue  # its signals (page titles, openings) mean nothing in a person's files
            pending = check.pending(question, answer, ctx) if getattr(self.opts, check.option) else None
            if pending is not None:
                stage = self._stage(ctx, numbers, check.stage, check.summary)
                yield stage
                answer = yield from check.decide(question, answer, pending, ctx, parent=stage.step)
        if documents and self.opts.ground and self.opts.reread:
            answer = yield from self._reread_in_files(question, answer, ctx, numbers)
        return answer

    def _reread_in_files(self, question: str, answer: Result, ctx: RunContext, numbers) -> StrategyRun:
        """An answer the word check finds written in the files is read again, claim by claim, in
        the lines around it; the label it gets is decided here (LabelledResult) and the runner
        keeps it. An answer the word check does not back needs no second look; a reader with no
        measured threshold is not asked (the catalog's `reread`)."""
        threshold = reader_threshold(ctx.reader)
        if threshold is None:
            return answer
        subject = subject_of(question, getattr(ctx.retriever, "passages_with", None))
        named = files_named(question, one_word_names_of(ctx.retriever))
        memory = answer.resolved_by.startswith("self-knowledge")
        parts = Origin.parse(answer.resolved_by).source == PARTS

        def ground(states):
            return ground_documents(answer.text, question, answer.citations, self.opts.honest, from_memory=memory,
                                    subject=subject, parts=parts, states=states, named=named)
        words, claims = planned_claims(ground)
        if words.grounding != SUPPORTED or not claims:  # not backed, or only sentences too long to read
            return answer
        stage = self._stage(ctx, numbers, "reread", "Read again the lines each answer rests on")
        yield stage
        check = ReaderCheck(ctx.reader, threshold, before_call=ctx.check_budget)
        try:
            for asked, claim, passages in claims:  # each verdict shown as it is made
                v = check.verdict(asked, claim, passages)
                yield AnswerReread(step=ctx.step(), parent=stage.step, summary=reread_line(v), **asdict(v))
        except BudgetExceeded as exc:
            yield Note(step=ctx.step(), parent=stage.step, message=f"{exc}; the answer is labelled by its words alone")
            return answer
        checked = ground(check.states)  # every claim read above: no further call
        turned = next((v for v in check.verdicts if not v.confirmed), None)
        if checked.grounding == UNSUPPORTED and turned is not None and self.opts.honest:
            checked = replace(checked, marked_text=not_given(turned, answer.text))
        return LabelledResult(answer.text, answer.citations, answer.resolved_by, answer.avg_prob, attribution=checked)

    def _answer(self, question: str, ctx: RunContext, numbers) -> StrategyRun:
        documents = self._on_files(ctx)
        parts = parts_of(question) if documents else []
        if parts:  # each part from its own passages; the reader's memory would answer one part only
            # no ReFeed after: a refinement of the joined answer rewrote it into one part's answer
            return (yield from self._parts(parts, ctx, numbers))
        if documents:
            return (yield from self._answer_from_files(question, ctx, numbers))
        if self.opts.self_knowledge and self.opts.memory:
            stage = self._stage(ctx, numbers, "self-knowledge", "Can the reader answer from memory? (RA-ISF)",
                                strategy="ra-isf")
            yield stage
            known = yield from self_knowledge(question, ctx, level=0, parent=stage.step)
            if known is not None:
                if self.opts.ground and self.opts.memory_check and ctx.retriever is not None:
                    known = yield from self._look_up_memory(question, known, ctx, numbers)
                return known

        stage = self._stage(ctx, numbers, "retrieve", "Look up passages and let the judge rank them (RA-ISF)",
                            strategy="ra-isf")
        yield stage
        ranking = yield from self._first_hop(question, ctx, stage.step)
        sufficient = self._sufficient(ranking, ctx)
        answer = None
        if self.opts.hop == "never" or (self.opts.hop == "auto" and sufficient is not False):
            answer = yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                                "passages", citations=ranking.kept, parent=stage.step)
        if answer is None or (self.opts.hop == "auto" and is_unknown(answer.text)):
            answer = yield from self._missing_hop(question, ctx, numbers, ranking, answer)
        return (yield from self._check_with_feedback(question, answer, ctx, numbers, False))

    def _answer_from_files(self, question: str, ctx: RunContext, numbers) -> StrategyRun:
        """A person's files first, memory last: the first search's passages answered in one reader
        call. The memory gate would cost a call on every question to answer few (what a person's
        files say is rarely in the reader's memory), and the judge's sense of "short support" and
        the missing hop were learned on two-page encyclopedia questions: here only an answer the
        passages do not hold asks the reader's memory, labelled so."""
        stage = self._stage(ctx, numbers, "retrieve", "Look up passages in your files and let the judge rank them "
                            "(RA-ISF)", strategy="ra-isf")
        yield stage
        ranking = yield from self._first_hop(question, ctx, stage.step)
        answer = yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                            "passages", citations=ranking.kept, parent=stage.step)
        if is_unknown(answer.text):
            if self.opts.self_knowledge and self.opts.memory:
                stage = self._stage(ctx, numbers, "self-knowledge", "Not in the passages read: can the reader "
                                    "answer from memory? (RA-ISF)", strategy="ra-isf")
                yield stage
                known = yield from self_knowledge(question, ctx, level=0, parent=stage.step)
                if known is not None:  # the passages read stay, so that any that back it are cited
                    return replace(known, citations=ranking.kept)
            return answer
        return (yield from self._check_with_feedback(question, answer, ctx, numbers, True))

    def _parts(self, parts: list[Part], ctx: RunContext, numbers) -> StrategyRun:
        """Each part of the question searched, ranked and answered alone; their answers joined,
        a sentence each, so that each is cited from its own passages."""
        stage = self._stage(ctx, numbers, "parts", f"Answer each of the question's {len(parts)} parts "
                            "from its own passages (RA-ISF)", strategy="ra-isf")
        yield stage
        answered, read, probs = [], [], []
        for index, part in enumerate(parts):
            opened = SubQuestion(step=ctx.step(), parent=stage.step, depth=1, question=part.question, index=index)
            ctx.sub_questions += 1
            yield opened
            ranking = yield from self._first_hop(part.question, ctx, opened.step)
            result = yield from generate_answer(ctx, lambda ps, q=part.question: prompts.from_passages(q, ps),
                                                part.question, "passages", citations=ranking.kept,
                                                parent=opened.step, depth=1, stream=False)
            yield SubAnswer(step=ctx.step(), parent=opened.step, depth=1, question=part.question,
                            answer=result.text, resolved_by=result.resolved_by)
            answered.append((part, result.text))
            read = add_new(read, result.citations)
            probs.append(result.avg_prob or 0.0)
        return Result(combined(answered), citations=read, resolved_by=PARTS, avg_prob=min(probs, default=0.0))

    def _check_with_feedback(self, question: str, answer: Result, ctx: RunContext, numbers,
                             documents: bool) -> StrategyRun:
        """ReFeed's check of the answer against a search with it; in a person's files only for a
        draft whose passages do not state it (a stated answer needs no second look-up)."""
        if not self.opts.refine:
            return answer
        if documents:
            subject = subject_of(question, getattr(ctx.retriever, "passages_with", None))
            named = files_named(question, one_word_names_of(ctx.retriever))
            if ground_documents(answer.text, question, answer.citations, subject=subject,
                                named=named).grounding == SUPPORTED:
                return answer
        stage = self._stage(ctx, numbers, "refeed", "Check the answer against a look-up with it (ReFeed)",
                            strategy="refeed", draft=answer.text)
        yield stage
        draft = Candidate(answer.text, answer.avg_prob or 0.0, citations=answer.citations, basis=answer.resolved_by)
        try:
            final = yield from refine(question, [draft], ctx, keep=self.opts.keep, parent=stage.step,
                                      judged=self.opts.relevance, read=answer.citations)
        except BudgetExceeded as exc:
            yield Note(step=ctx.step(), parent=stage.step, message=f"{exc}; keeping the answer")
            return answer
        if final.resolved_by == "refinement":
            final = replace(final, resolved_by=str(Origin.parse(answer.resolved_by).turned(REFINED)))
        return final

    def _look_up_memory(self, question: str, known: Result, ctx: RunContext, numbers) -> StrategyRun:
        """A search with the question, so the grounding check can tell whether the documents back
        the answer from memory (then it cites them) or not (then it stays labelled from memory).
        No reader call: the answer is never changed."""
        stage = self._stage(ctx, numbers, "memory check", "Look the answer from memory up in your documents",
                            strategy="ra-isf")
        yield stage
        passages = yield from ctx.retrieve(question, parent=stage.step)
        return replace(known, citations=list(passages))

    def _first_hop(self, question: str, ctx: RunContext, parent: int):
        judged = self.opts.relevance and ctx.relevance is not None
        passages = yield from ctx.retrieve(question, k=ctx.settings.pool if judged else None, parent=parent)
        if judged and passages:
            ranking = yield from judge_pool(ctx, question, passages, parent=parent)
            documents = self._on_files(ctx)
            if self.opts.chain and not documents:  # bridges between article titles: not a person's files
                ranking = yield from chain_read_set(ctx, question, ranking, parent=parent)
            if documents:
                # the judge learned its ranking on encyclopedia pages: in a person's files the plain
                # search's best passages are read too (a manual it ranked low may hold the answer)
                ranking = replace(ranking, kept=add_new(list(ranking.kept), passages[:SEARCH_KEPT]))
            return ranking
        return Ranked(kept=list(passages), above_threshold=len(passages))

    def _sufficient(self, ranking: Ranked, ctx: RunContext) -> bool | None:
        """Whether the judge finds all the support among the kept passages; None when it cannot say
        (no trained judge, or one without a sufficiency threshold): then only "unknown" hops."""
        sufficiency = getattr(ctx.relevance, "sufficiency", None) if self.opts.relevance else None
        if sufficiency is None or not ranking.scores:
            return None
        rank, cut = sufficiency
        return ranking.support(rank) >= cut

    def _missing_hop(self, question: str, ctx: RunContext, numbers, ranking: Ranked,
                     first: Result | None) -> StrategyRun:
        why = ("the first answer was unknown" if first is not None
               else "the judge finds the support short" if self.opts.hop == "auto" else "hop=always")
        stage = self._stage(ctx, numbers, "hop", f"Find the missing hop, since {why}: split the question, "
                            "look up each part (RA-ISF)", strategy="ra-isf", why=why)
        yield stage
        hops = yield from follow_hops(question, ctx, parent=stage.step)
        if not hops.pairs:
            if first is not None:
                return first
            return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                               "passages", citations=ranking.kept, parent=stage.step))
        union = self.opts.hop_read == "union" and bool(ranking.pool)  # a judged first hop to rank with
        summary = ("Rank everything found against the question; answer from its top" if union
                   else "Answer from both hops' passages")
        summary += " and the parts' answers" if self.opts.hop_facts else ""
        stage = self._stage(ctx, numbers, "multi-hop answer", summary, strategy="ra-isf")
        yield stage
        if union:
            everything = yield from judge_union(ctx, question, ranking, hops.searches, parent=stage.step)
            passages = everything.pool[:UNION_READ]
            if self.opts.chain:  # the same number, picked hop by hop from everything found
                chained = yield from chain_read_set(ctx, question, replace(everything, kept=passages), stage.step)
                passages = chained.kept
        else:
            passages = add_new(list(ranking.kept[:FIRST_HOP_CARRIED]), hops.passages)
        facts = hops.pairs if self.opts.hop_facts else ()
        return (yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps, facts=facts),
                                           question, "multi-hop", citations=passages, parent=stage.step))
