"""The profile for a person's own files (folders and files indexed with `index add`).

1. a question about the folder itself ("which of my files mention X?") is answered from what the
   index knows of its files (assistant/folder/), not from five passages;
2. a question of several parts (assistant/answering/parts.py) has each part searched, ranked and
   answered alone, their answers joined a sentence each;
3. otherwise the first search's passages, ranked by the judge with the plain search's best beside
   them, are answered in one reader call; the reader's memory only after "unknown" (what a
   person's files say is rarely in its memory), labelled so; ReFeed only for a draft the passages
   do not state;
4. the answer checks that suit any documents (the ones made for encyclopedic pages read titles and
   openings: they mean nothing here);
5. grounding: the word check made for such files (assistant/grounding/documents.py), then the
   reader reads again the lines each short answer rests on (documents_check.py) and the label is
   decided here; the chain read set and the missing hop, learned on two-page encyclopedia
   questions, are left out.
"""
from __future__ import annotations

from dataclasses import asdict, replace

from models.errors import BudgetExceeded

from ..answering import prompts
from ..answering.generate import StrategyRun, generate_answer
from ..answering.hops import add_new, is_unknown
from ..answering.origin import PARTS, Origin
from ..answering.parts import Part, combined, parts_of
from ..checks.base import AnswerCheck
from ..context import Result
from ..events.core import Note, SubAnswer, SubQuestion
from ..events.details import AnswerReread
from ..folder.answers import answer_folder_question, folder_question
from ..grounding.citations import Attribution, LabelledResult
from ..grounding.documents import files_named, ground_documents, subject_of
from ..grounding.documents_check import ReaderCheck, States, not_given, planned_claims, reader_threshold, reread_line
from ..grounding.verdict import SUPPORTED, GroundingRule
from ..grounding.written import with_reason
from ..retrieval.index_files import one_word_names_of
from .base import Profile, QuestionRun, from_memory
from .settings import FILES
from .stages import answer_checks, memory_gate, refeed_check, search_and_judge


class PersonalFiles(Profile):
    name = "files"
    sources = "a person's own files: folders and files indexed with `index add`"

    def answer(self, run: QuestionRun) -> StrategyRun:
        asked = folder_question(run.question)
        if asked is not None:
            stage = run.stage("folder", "Answer from what the index knows of your files")
            yield stage
            answer = yield from answer_folder_question(asked, run.ctx, parent=stage.step)
            if answer is not None:
                return answer  # with its own citations and label; no answer check applies
        parts = parts_of(run.question)
        if parts:  # each part from its own passages; the reader's memory would answer one part only
            answer = yield from self._parts(run, parts)  # no ReFeed after: it rewrote the joined answer into one part's
        else:
            answer = yield from self._answer(run)
        answer = yield from answer_checks(run, answer, self.suits)
        if run.opts.ground and run.opts.reread:
            answer = yield from self._reread(run, answer)
        return answer

    def suits(self, check: AnswerCheck) -> bool:
        return check.suits == "any documents"

    def ground(self, run: QuestionRun, text: str, result: Result, rule: GroundingRule) -> Attribution:
        return self._word_check(run, text, result, rule.honest)

    def _word_check(self, run: QuestionRun, text: str, result: Result, honest: bool = True,
                    states: States | None = None) -> Attribution:
        """Each sentence of the answer written in a passage read that is about the question (a file
        the question names is about it); `states` says which claims the reader read again."""
        subject = run.once("subject", lambda: subject_of(run.question, getattr(run.ctx.retriever, "passages_with",
                                                                                  None)))
        named = run.once("named", lambda: files_named(run.question, one_word_names_of(run.ctx.retriever)))
        parts = Origin.parse(result.resolved_by).source == PARTS
        return ground_documents(text, run.question, result.citations, honest, from_memory=from_memory(result),
                                subject=subject, parts=parts, states=states, named=named)

    def _answer(self, run: QuestionRun) -> StrategyRun:
        """The first search's passages answered in one reader call; memory only after "unknown"."""
        ctx, question = run.ctx, run.question
        stage = run.stage("retrieve", "Look up passages in your files and let the judge rank them (RA-ISF)",
                          strategy="ra-isf")
        yield stage
        ranking = yield from self._first_hop(run, question, stage.step)
        answer = yield from generate_answer(ctx, lambda ps: prompts.from_passages(question, ps), question,
                                            "passages", citations=ranking.kept, parent=stage.step)
        if is_unknown(answer.text):
            known = yield from memory_gate(run, "Not in the passages read: can the reader answer from memory? "
                                           "(RA-ISF)")
            if known is not None:  # the passages read stay, so that any that back it are cited
                return replace(known, citations=ranking.kept)
            return answer
        if run.opts.refine and self._word_check(run, answer.text, answer).grounding == SUPPORTED:
            return answer  # a draft its passages state needs no second look-up
        return (yield from refeed_check(run, answer))

    def _first_hop(self, run: QuestionRun, question: str, parent: int):
        ranking, passages, judged = yield from search_and_judge(run, question, parent)
        if judged:
            # the judge learned its ranking on encyclopedia pages: in a person's files the plain
            # search's best passages are read too (a manual it ranked low may hold the answer)
            ranking = replace(ranking, kept=add_new(list(ranking.kept), passages[:run.ctx.tuned(FILES).search_kept]))
        return ranking

    def _parts(self, run: QuestionRun, parts: list[Part]) -> StrategyRun:
        """Each part of the question searched, ranked and answered alone; their answers joined,
        a sentence each, so that each is cited from its own passages."""
        ctx = run.ctx
        stage = run.stage("parts", f"Answer each of the question's {len(parts)} parts from its own passages "
                          "(RA-ISF)", strategy="ra-isf")
        yield stage
        answered, read, probs = [], [], []
        for index, part in enumerate(parts):
            opened = SubQuestion(step=ctx.step(), parent=stage.step, depth=1, question=part.question, index=index)
            ctx.sub_questions += 1
            yield opened
            ranking = yield from self._first_hop(run, part.question, opened.step)
            result = yield from generate_answer(ctx, lambda ps, q=part.question: prompts.from_passages(q, ps),
                                                part.question, "passages", citations=ranking.kept,
                                                parent=opened.step, depth=1, stream=False)
            yield SubAnswer(step=ctx.step(), parent=opened.step, depth=1, question=part.question,
                            answer=result.text, resolved_by=result.resolved_by)
            answered.append((part, result.text))
            read = add_new(read, result.citations)
            probs.append(result.avg_prob or 0.0)
        return Result(combined(answered), citations=read, resolved_by=PARTS, avg_prob=min(probs, default=0.0))

    def _reread(self, run: QuestionRun, answer: Result) -> StrategyRun:
        """An answer the word check finds written in the files is read again, claim by claim, in
        the lines around it; the label it gets is decided here (LabelledResult) and the runner
        keeps it. An answer the word check does not back needs no second look; a reader with no
        measured threshold is not asked (the catalog's `reread`)."""
        ctx = run.ctx
        threshold = reader_threshold(ctx.reader)
        if threshold is None:
            return answer

        def ground(states):
            return self._word_check(run, answer.text, answer, run.opts.honest, states)
        words, claims = planned_claims(ground)
        if words.grounding != SUPPORTED or not claims:  # not backed, or only sentences too long to read
            return answer
        stage = run.stage("reread", "Read again the lines each answer rests on")
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
        if turned is not None:  # the note says what the reader read there instead
            checked = with_reason(checked, not_given(turned))
        return LabelledResult(answer.text, answer.citations, answer.resolved_by, answer.avg_prob, attribution=checked)
