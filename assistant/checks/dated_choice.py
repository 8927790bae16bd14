"""A choice decided by the dates the options' pages give: "Who was born first, A or B?", "Which
film came out first?", "Which band formed earlier?", "Who is younger?", "Who died first?".

The reader picks one of two options by feel, more often the one named first; a date is on each
option's page ("Emma Bull (born December 13, 1954)", "Dinosaur is a 2000 American ... film"), and
comparing two dates is no work for a reader. So when the question asks which of its two options
came first or last, each option's page among the passages read gives its date (after the
question's own verb on the page, "formed in 2008"; else the year a title carries, "Battle of Guam
(1944)"; else the first date the page opens with), and the earlier or later one is the answer.
Without a page or a date for both, or with one date for both, the answer stands as written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..answering.generate import StrategyRun
from ..answering.origin import turned
from .base import AnswerCheck
from .choice_options import LEADING_ARTICLE, options_of, picked
from .settings import DATED_CHOICE
from ..context import Result, RunContext
from ..events.details import DatedChoice
from ..events.core import Passage
from ..grounding.features import DISAMBIGUATION, stemmed_words, written_name

_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december")
MONTHS = {**{m: i + 1 for i, m in enumerate(_MONTH_NAMES)}, **{m[:3]: i + 1 for i, m in enumerate(_MONTH_NAMES)},
          "sept": 9}
_M = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATE = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m1>{_M})\.?,?\s+(?P<y1>\d{{3,4}})"
    rf"|(?P<m2>{_M})\.?,?\s+(?:(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+)?(?P<y2>\d{{3,4}})"
    rf"|(?P<y4>\d{{1,4}})(?=\s*(?:BC|BCE|B\.C\.))"
    rf"|(?P<y3>1\d{{3}}|20\d{{2}}))(?!\d)(?P<bc>\s*(?:BC|BCE|B\.C\.))?", re.I)
_TITLE_YEAR = re.compile(r"\((?:[^()]*\s)?(\d{4})(?:\s[^()]*)?\)\s*$")

EARLIER_WORDS = ("first", "earlier", "earliest", "sooner", "older", "oldest")
LATER_WORDS = ("later", "latest", "last", "newer", "newest", "younger", "youngest", "more recently",
               "most recently", "more recent", "most recent")
AGE_WORDS = ("older", "oldest", "younger", "youngest", "newer", "newest")
# the verbs of a dated event a question asks about ("Which band formed earlier?"); on the page the
# same verb is looked for before a date ("Formed in 2008")
EVENT_VERBS = ("born", "died", "released", "came out", "come out", "formed", "founded", "published", "established",
               "created", "produced", "produce", "made", "opened", "began", "begin", "started", "start", "fought",
               "occurred", "took place", "take place", "happened", "decided", "launched", "built", "written", "aired",
               "premiered", "debuted", "came to market", "invented", "discovered", "signed", "issued", "introduced",
               "organized", "organised", "incorporated", "constructed", "completed", "elected")
# a date of something else the options lead to ("Which film has the director who was born first?"):
# not on the options' own pages
_RELATED = re.compile(r"\b(?:whose|has the|had the|have the|of the (?:director|producer|composer|author|writer|"
                      r"creator|founder|singer|performer|father|mother|spouse|wife|husband))\b")


@dataclass(frozen=True)
class DateFrame:
    """What a question compares: the date of which event ("start": a birth, a release, a founding;
    "death"), and whether the earlier one answers it."""
    event: str
    earlier: bool
    verb: str = ""  # the question's verb, looked for on the page before a date


@dataclass(frozen=True)
class Dated:
    """A date as a page writes it: year, month (0: unknown), day (0: unknown); BC years negative."""
    year: int
    month: int = 0
    day: int = 0
    text: str = ""


@dataclass(frozen=True)
class DatedVerdict:
    options: tuple[str, str]
    pages: tuple[str, str]  # the titles of the pages that gave the dates
    dates: tuple[Dated, Dated]
    decided: int  # the option whose date answers the question
    frame: DateFrame


def frame_of(question: str) -> DateFrame | None:
    """The date comparison a question asks for, or None ("Who was the first Russian composer to
    ..." asks for no comparison of dates)."""
    q = " ".join(question.lower().replace("?", " ").split())
    if _RELATED.search(q):
        return None
    age = next((w for w in AGE_WORDS if re.search(rf"\b{w}\b", q)), None)
    if age:
        # "Which film is newer?": no verb to look for (a film's page writes its cast's "born")
        return DateFrame("death" if re.search(r"\bdied\b", q) else "start", age in ("older", "oldest"),
                         "born" if re.search(r"\bborn\b", q) else "")
    # "the first X" names a thing, it asks no comparison ("Who was the first Russian composer to ...")
    when = [w for w in (*EARLIER_WORDS, *LATER_WORDS) if re.search(rf"(?<!the )\b{w}\b", q)]
    verb = next((v for v in EVENT_VERBS if re.search(rf"\b{v}\b", q)), None)
    if not when or verb is None:
        return None
    earlier = when[0] in EARLIER_WORDS
    event = "death" if verb == "died" else "start"
    return DateFrame(event, earlier, verb)


def dates_in(text: str) -> list[Dated]:
    """The dates a text writes, in order."""
    out = []
    for m in _DATE.finditer(text):
        year = int(m.group("y1") or m.group("y2") or m.group("y4") or m.group("y3"))
        month_name = (m.group("m1") or m.group("m2") or "").lower().rstrip(".")
        day = int(m.group("d1") or m.group("d2") or 0)
        if (year < 100 and not m.group("bc")) or day > 31:
            continue
        out.append(Dated(-year if m.group("bc") else year, MONTHS.get(month_name, 0), day, m.group(0).strip()))
    return out


def page_date(pages: Sequence[Passage], frame: DateFrame) -> Dated | None:
    """The date an option's page gives for the question's event, over its passages (a page can come
    in several): after the question's verb on it ("formed in 2008", "born 2 October 1969"), else for
    a start the year its title carries ("(1944)"), else the date its opening gives first (the birth
    date in "Emma Bull (born December 13, 1954)"); for a death, one after "died", else the second
    date of its opening span ("(25 January 1882 – 28 March 1941)"). Only a passage that opens the
    page (naming its subject near its start) gives an opening date."""
    verb = "died" if frame.event == "death" else frame.verb
    for page in pages:
        after = _after_verb(page.text, verb) if verb else None
        if after:
            return after
    openings = [p.text[:DATED_CHOICE.opening_chars] for p in pages if _opens_page(p)]
    if frame.event == "death":
        for opening in openings:
            brackets = re.search(r"\(([^()]*)\)", opening)
            found = dates_in(brackets.group(1)) if brackets else []
            if len(found) >= 2:
                return found[1]
        return None
    titled = _TITLE_YEAR.search(pages[0].title or "") if pages else None
    if titled:
        return Dated(int(titled.group(1)), text=titled.group(1))
    for opening in openings:
        found = dates_in(opening)
        if found:
            return found[0]
    return None


def _opens_page(passage: Passage) -> bool:
    """Whether a passage is its page's opening: a word of its title among its first words."""
    title = set(stemmed_words(DISAMBIGUATION.sub("", passage.title or "")))
    return bool(title & set(stemmed_words(passage.text[:DATED_CHOICE.title_in_chars])))


def _after_verb(text: str, verb: str) -> Dated | None:
    """The first date within a few words after the verb's stem on the page ("formed in 2008")."""
    letters = DATED_CHOICE.verb_stem_letters
    stem = verb.split()[0][:letters] if len(verb) > letters else verb.split()[0]
    for m in re.finditer(rf"\b{re.escape(stem)}\w*\b", text, re.I):
        found = dates_in(text[m.end():m.end() + DATED_CHOICE.after_verb_chars])
        if found:
            return found[0]
    return None


def option_pages(option: str, passages: Sequence[Passage], question: str = "") -> list[Passage]:
    """The passages of an option's page among those read, best-ranked first: those whose title is
    written as the option is ("Dinosaur (film)" for "Dinosaur", "McFarland, USA" as it is). Of pages
    of one name ("Old Dogs", the band, and "Old Dogs (film)"), the one whose "(film)" the question
    names ("Which film ..."), else the best-ranked one (which may be a namesake: "Battle of Manila
    (1574)" for the battle of 1945; the trace names it)."""
    said = " ".join(stemmed_words(LEADING_ARTICLE.sub("", option)))
    found: dict[str, list[Passage]] = {}
    for p in passages:
        title = p.title or ""
        bare = LEADING_ARTICLE.sub("", DISAMBIGUATION.sub("", title))
        if said and said in (written_name(title), " ".join(stemmed_words(bare)), " ".join(stemmed_words(title))):
            found.setdefault(title, []).append(p)
    if len(found) <= 1:
        return next(iter(found.values()), [])
    asked = set(stemmed_words(question))
    named = [title for title in found if (kind := DISAMBIGUATION.search(title))
             and set(stemmed_words(kind.group(0))) & asked]
    return found[named[0] if len(named) == 1 else next(iter(found))]


def earlier_of(a: Dated, b: Dated) -> int | None:
    """0 when a is earlier, 1 when b is; None when the dates written cannot tell them apart."""
    for x, y in ((a.year, b.year), (a.month, b.month), (a.day, b.day)):
        if not x or not y:
            return None
        if x != y:
            return 0 if x < y else 1
    return None


def decide(question: str, passages: Sequence[Passage]) -> DatedVerdict | None:
    """The option the dates on the options' pages answer, or None when they cannot say."""
    frame = frame_of(question)
    options = options_of(question) if frame else None
    if options is None:
        return None
    pages = [option_pages(o, passages, question) for o in options]
    if not pages[0] or not pages[1] or pages[0][0].title == pages[1][0].title:
        return None
    dates = [page_date(p, frame) for p in pages]
    if None in dates:
        return None
    first = earlier_of(dates[0], dates[1])
    if first is None:
        return None
    decided = first if frame.earlier else 1 - first
    return DatedVerdict(options, (pages[0][0].title, pages[1][0].title), (dates[0], dates[1]), decided, frame)


def pick_to_decide(question: str, answer_text: str, passages: Sequence[Passage]) -> tuple[DatedVerdict, int] | None:
    """The verdict and the option the answer picked, when the answer names one option and the dates
    decide; None otherwise (the answer then stands as written)."""
    verdict = decide(question, passages)
    if verdict is None:
        return None
    pick = picked(answer_text, verdict.options)
    return None if pick is None else (verdict, pick)


def weigh_dates(answer: Result, verdict: DatedVerdict, pick: int, ctx: RunContext,
                parent: int | None = None) -> StrategyRun:
    """The answer (option `pick`), kept or turned to the option the dates answer (`pick_to_decide`)."""
    options, decided = verdict.options, verdict.decided
    which = "earlier" if verdict.frame.earlier else "later"
    dates = "; ".join(f"{title}: {date.text}" for title, date in zip(verdict.pages, verdict.dates))
    outcome = f"Kept “{options[pick]}”" if decided == pick else f"“{options[pick]}” became “{options[decided]}”"
    yield DatedChoice(step=ctx.step(), parent=parent, summary=f"{outcome}, the {which} date ({dates})",
                      options=list(options), answer=options[pick], decided=options[decided],
                      pages=list(verdict.pages), dates=[d.text for d in verdict.dates], event=verdict.frame.event,
                      earlier=verdict.frame.earlier)
    if decided == pick:
        return answer
    return turned(answer, DatesDecide.mark, options[decided])


class DatesDecide(AnswerCheck):
    option, stage, mark, detail = "dates", "dates", "dates", DatedChoice
    summary = "Compare the dates the two options' pages give"
    suits = "encyclopedic pages"  # a page that opens with its subject's date; titles as options

    def pending(self, question: str, answer: Result, ctx: RunContext) -> tuple[DatedVerdict, int] | None:
        return pick_to_decide(question, answer.text, answer.citations)

    def decide(self, question, answer, pending, ctx, parent=None):
        return weigh_dates(answer, *pending, ctx, parent=parent)
