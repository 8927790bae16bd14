"""The reader reads again the line an answer rests on: on a person's own files, a short answer the
word check finds written in a cited passage is presented as supported only when the reader, shown
that passage's lines around it with the question, says the text gives it as the answer.

The word check (documents.py) finds the passage that writes the answer; it cannot tell the line that
answers the question from another line of the same manual ("v1.2" for unzip's version, from
"zipinfo v1.2"; "October 07, 2026" for when a module appeared, from the page's "Last updated"
line), nor a file that only holds the answer's words. One short reader call per claim (the lines
around it, not the five passages) scores yes against no, against the threshold measured for that
reader (the catalog's `reread`; how it is measured: EVALUATION.md, "Your own documents"). A yes
is then put to a second short call (the same lines and question, read from the cache, without the
claim): what the reader answers from the lines itself must be the claim written some way
(agreement.py). A small reader says yes to most facts the lines hold; answering, it names the line
that answers ("-d" where it had said yes to "-s", the option beside it). A reader with none
measured is not asked: a reader too small to read the lines (the bundled SmolLM2-135M) says no to
right answers.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from index_builder.extract.text import plain_hyphens

from ..events.core import Passage
from .agreement import same_answer
from .citations import STOPWORDS, Attribution, stem, text_for_matching
from .settings import REREAD
from .written_forms import number_value, number_written

# how many words around the answer are read, which claims and how many passages: settings.RereadSettings

# the two prompts share their opening (the lines, the question): the second is read from the cache
_LINES = "From the file {path}:\n\"{lines}\"\n\nQuestion: {asked}\n"
PROMPT = _LINES + ("Proposed answer: {claim}\n\n"
                   "Does this text say that the proposed answer is the answer to the question? Reply yes or no.")
# asked without the claim, the reader answers from the lines itself: a yes to another line's fact
# (the option beside the right one) is not confirmed when what it reads there is another answer
READ_PROMPT = _LINES + "Reply with the answer only, as this text writes it."

States = Callable[[str, str, Sequence[Passage]], bool]


def asked_and_claimed(question: str, sentence: str, parts: bool) -> tuple[str, str]:
    """(what was asked, what is claimed) for one sentence of the answer: a part's sentence ("Who
    wrote timeout: Padraig Brady.") is its own question and answer."""
    sentence = sentence.strip().rstrip(".")
    if parts and ":" in sentence:
        asked, claimed = sentence.split(":", 1)
        return asked.strip(), claimed.strip()
    return question, sentence


def _words(text: str) -> set[str]:
    return {stem(w) for w in text_for_matching(text).split()} - STOPWORDS


def lines_around(text: str, claim: str, asked: str, width: int = REREAD.window_words) -> str:
    """The passage's words around where it writes the claim (of several places, the one whose
    neighbourhood holds most of the question's words); its opening when it never does."""
    text, claim = plain_hyphens(text), plain_hyphens(claim)  # "-i" is the "−i" of a groff PDF
    words = text.split()
    keys = [k for k in re.findall(r"[\w.@/+-]+", claim.lower()) if len(k) > 1 or k.isdigit()] or [claim.lower()]
    value = number_value(claim)
    written = number_written(text, value) if value is not None else None
    if written:  # the claim "900000" where the manual writes "900 k"
        keys.append(written.split()[0].lower())
    hits = [i for i, w in enumerate(words) if any(k in w.lower() for k in keys)]
    if not hits:
        return " ".join(words[:2 * width])
    asked_words = _words(asked)

    def around(i: int) -> list[str]:
        return words[max(0, i - width):i + width]
    best = max(hits, key=lambda i: (len(asked_words & _words(" ".join(around(i)))), -i))
    return " ".join(around(best))


def says_yes(reader, asked: str, claim: str, passage: Passage) -> float:
    """The reader's P(yes) over yes and no that the passage's lines give the claim as the answer."""
    prompt = PROMPT.format(path=passage.path or passage.title, lines=lines_around(passage.text, claim, asked),
                           asked=asked, claim=claim)
    yes, no = reader.score_options([{"role": "user", "content": prompt}], ["yes", "no"])
    top = max(yes.logprob, no.logprob)
    a, b = math.exp(yes.logprob - top), math.exp(no.logprob - top)
    return a / (a + b)


def reads_as(reader, asked: str, claim: str, passage: Passage) -> str:
    """What the reader answers from the same lines, not shown the claim."""
    prompt = READ_PROMPT.format(path=passage.path or passage.title, lines=lines_around(passage.text, claim, asked),
                                asked=asked)
    return reader.generate([{"role": "user", "content": prompt}], max_tokens=REREAD.read_tokens, stop=["\n"]).text


def reader_threshold(reader) -> float | None:
    """The catalog's re-read threshold for the reader's file; None for a reader without one (or
    when the catalog cannot be read: the word check alone then labels the answer)."""
    from models.downloads.catalog import reader_measured

    return reader_measured(reader, "reread")


@dataclass
class Verdict:
    """One claim read again; its fields are those of the step shown (events.details.AnswerReread)."""

    asked: str
    claim: str
    path: str
    p_yes: float
    confirmed: bool
    read: str = ""  # what the reader answered from the lines itself


Claim = tuple[str, str, tuple[str, ...]]  # (asked, claimed, the ids of the passages it rests on)


def needs_reading(claim: str, passages: Sequence[Passage]) -> bool:
    return len(claim.split()) <= REREAD.short_claim and bool(passages)


def planned_claims(ground: Callable[[States], Attribution]) -> tuple[Attribution, list[tuple[str, str, list[Passage]]]]:
    """The word check's attribution and the claims it would have read again, in order, without
    reading any: `ground` runs the word check with the `states` it is given (which here records
    each claim and says yes, so the attribution is the word check's alone)."""
    planned = []

    def record(asked: str, claim: str, passages: Sequence[Passage]) -> bool:
        if needs_reading(claim, passages):
            planned.append((asked, claim, list(passages)))
        return True
    return ground(record), planned


class ReaderCheck:
    """The reader confirms each short claim on one of its cited passages. `verdict` reads one
    claim (so that a caller can show each as it is made); `states`, for documents.ground_documents,
    reads the claims not yet read and answers from the verdicts; every verdict is kept."""

    def __init__(self, reader, threshold: float, before_call: Callable[[], None] | None = None):
        self.reader = reader
        self.threshold = threshold
        self.before_call = before_call  # the run's reader-call budget
        self.verdicts: list[Verdict] = []
        self._decided: dict[Claim, Verdict] = {}

    def verdict(self, asked: str, claim: str, passages: Sequence[Passage]) -> Verdict:
        key = (asked, claim, tuple(p.id for p in passages))
        if key in self._decided:
            return self._decided[key]
        best = None
        for passage in list(passages)[:REREAD.max_passages]:
            if self.before_call:
                self.before_call()
            p = says_yes(self.reader, asked, claim, passage)
            confirmed, read = p >= self.threshold, ""
            if confirmed:  # a second short call, its opening read from the cache
                if self.before_call:
                    self.before_call()
                read = reads_as(self.reader, asked, claim, passage)
                confirmed = same_answer(claim, read, passage.text)
            if best is None or (confirmed, p) > (best.confirmed, best.p_yes):
                best = Verdict(asked, claim, passage.path or passage.title, round(p, REREAD.p_yes_digits),
                               confirmed, read)
            if best.confirmed:
                break
        self._decided[key] = best
        self.verdicts.append(best)
        return best

    def states(self, asked: str, claim: str, passages: Sequence[Passage]) -> bool:
        return not needs_reading(claim, passages) or self.verdict(asked, claim, passages).confirmed


def not_given(v: Verdict) -> str:
    """Why the re-read did not confirm a claim, in plain words (the "written, not confirmed" note)."""
    if v.read:
        return f"read again, {v.path} gives “{_short(v.read)}” as the answer"
    return f"read again, {v.path} does not give “{v.claim}” as the answer"


def reread_line(v: Verdict) -> str:
    """The step as the user reads it."""
    if v.confirmed:
        return f"Read {v.path} again: it gives “{v.claim}” as the answer"
    if v.read:
        return f"Read {v.path} again: it writes “{v.claim}”, but reads “{_short(v.read)}” as the answer"
    return f"Read {v.path} again: it writes “{v.claim}”, but not as the answer to this question"


def _short(text: str, words: int = REREAD.shown_words) -> str:
    said = text.split()
    return " ".join(said[:words]) + ("…" if len(said) > words else "")
