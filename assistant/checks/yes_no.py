"""A yes/no answer weighed against the reader's lean to "yes".

Small readers answer "Yes" to nearly every yes/no question, yet their own odds still rank the
questions well: the log-odds of "yes" over "no", read off the reader's first token given the
question and the passages the answer read, sit higher where the answer is "yes", only all shifted
up. So a yes/no answer is decided again by those odds against the reader's lean, a constant
measured per reader on training questions (the catalog's `yes_lean`; the figures are in
EVALUATION.md, "Yes/no answers weighed against the reader's lean to yes"). A reader with no
measured lean keeps its answers as written. Only a bare "yes" or "no" is weighed; an "unknown"
stays unknown.
"""
from __future__ import annotations

import math
import re
from models.errors import BudgetExceeded

from ..answering import prompts
from ..answering.generate import StrategyRun
from ..context import Result, RunContext
from ..events.details import YesNoCheck
from ..events.core import Note
from ..answering.origin import turned
from ..answering.prompt_fit import fit_passages
from .base import AnswerCheck
from .settings import YES_NO

_BARE = re.compile(r"^\s*(yes|no)\s*[.!]?\s*$", re.I)
YES_FORMS, NO_FORMS = ("Yes", "yes"), ("No", "no")


def bare_yes_no(text: str) -> str | None:
    """"Yes" or "No" for an answer that is only that word; else None."""
    match = _BARE.match(text or "")
    return match.group(1).capitalize() if match else None


def reader_lean(reader) -> float | None:
    """The catalog's measured yes-lean for the reader's file; None for a reader without one (or
    when the catalog cannot be read: the answer then stands as written)."""
    from models.downloads.catalog import reader_measured

    return reader_measured(reader, "yes_lean")


def log_odds_yes(reader, messages: list[dict]) -> float:
    """log P(yes) - log P(no) for the reader's reply to `messages`, each word in either case."""
    scored = reader.score_options(messages, [*YES_FORMS, *NO_FORMS])
    probs = [math.exp(s.logprob) for s in scored]
    yes, no = sum(probs[:len(YES_FORMS)]), sum(probs[len(YES_FORMS):])
    return math.log(max(yes, 1e-300)) - math.log(max(no, 1e-300))


def passages_log_odds(reader, question: str, passages, answer_tokens: int) -> float:
    """`log_odds_yes` on the answer prompt over `passages`, fitted to the reader's context as the
    answer's own prompt was (what the catalog's leans were measured on: lab/yes_no_lean.py)."""
    fit = fit_passages(reader, lambda ps: prompts.from_passages(question, ps), passages, answer_tokens)
    return log_odds_yes(reader, fit.messages)


def lean_to_weigh(answer: Result, reader) -> float | None:
    """The reader's lean when the answer is to be weighed: a bare yes/no read off passages."""
    return reader_lean(reader) if bare_yes_no(answer.text) and answer.citations else None


def weigh_yes_no(question: str, answer: Result, ctx: RunContext, lean: float,
                 parent: int | None = None) -> StrategyRun:
    """The answer (a bare yes/no, `lean_to_weigh`), its yes or no decided again against `lean`."""
    said = bare_yes_no(answer.text)
    try:
        ctx.check_budget()
        odds = passages_log_odds(ctx.reader, question, answer.citations, ctx.settings.max_answer_tokens)
    except BudgetExceeded as exc:
        yield Note(step=ctx.step(), parent=parent, message=f"{exc}; keeping the answer")
        return answer
    decided = "Yes" if odds > lean else "No"
    outcome = f"Kept “{said}”" if decided == said else f"“{said}” became “{decided}”"
    summary = (f"{outcome}: the reader's log-odds of yes over no, {odds:.2f}, are "
               f"{'above' if odds > lean else 'not above'} its lean to yes ({lean:g})")
    yield YesNoCheck(step=ctx.step(), parent=parent, summary=summary, answer=said,
                     log_odds=round(odds, YES_NO.log_odds_digits),
                     lean=lean, decided=decided)
    if decided == said:
        return answer
    return turned(answer, YesNoWeighed.mark, decided)


class YesNoWeighed(AnswerCheck):
    option, stage, mark, detail = "yes_no", "yes/no", "yes/no", YesNoCheck
    summary = "Weigh a yes/no answer against the reader's lean to yes"
    suits = "any documents"

    def pending(self, question: str, answer: Result, ctx: RunContext) -> float | None:
        return lean_to_weigh(answer, ctx.reader)

    def decide(self, question, answer, lean, ctx, parent=None):
        return weigh_yes_no(question, answer, ctx, lean, parent=parent)
