"""A yes/no question about two things' nationality decided by what their pages say: "Were Scott
Derrickson and Ed Wood of the same nationality?", "Are both Jim McBride and Neil Jordan American?",
"Were the bands Skin Yard and Ostava from the U.S.?".

A page states its subject's nationality in its opening ("Scott Derrickson (born July 16, 1966) is
an American director", "Ostava are an alternative rock band from Bulgaria"). The reader answers
such questions "unknown" or "Yes" more often than not; reading the two openings decides them. The
two things are the pages the question names by their titles among the passages the answer read;
without both, or without a nationality on each, the answer stands as written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..answering.generate import StrategyRun
from ..answering.origin import turned
from .base import AnswerCheck
from .settings import NATIONALITY
from ..context import Result, RunContext
from ..events.details import NationalityCheck
from ..events.core import Passage
from ..grounding.features import DISAMBIGUATION, Text, writes_title
from ..answering.hops import is_unknown
from .yes_no import bare_yes_no

# demonym or country as pages write it -> one name per nationality (the UK's nations are British:
# "English" and "British" are one nationality to a question asking whether two are the same)
_NATIONS = {
    "American": "american|united states|u.s.|u.s.a.|usa|america|new england|new mexico",
    "British": "british|english|scottish|welsh|united kingdom|u.k.|england|scotland|wales|britain",
    "Irish": "irish|ireland", "Canadian": "canadian|canada", "Australian": "australian|australia|new south wales",
    "New Zealand": "new zealand|new zealander", "French": "french|france", "German": "german|germany",
    "Italian": "italian|italy", "Spanish": "spanish|spain", "Portuguese": "portuguese|portugal",
    "Dutch": "dutch|netherlands|holland", "Belgian": "belgian|belgium", "Swiss": "swiss|switzerland",
    "Austrian": "austrian|austria", "Swedish": "swedish|sweden", "Norwegian": "norwegian|norway",
    "Danish": "danish|denmark", "Finnish": "finnish|finland", "Icelandic": "icelandic|iceland",
    "Polish": "polish|poland", "Czech": "czech|czechoslovak|czech republic", "Slovak": "slovak|slovakia",
    "Hungarian": "hungarian|hungary", "Romanian": "romanian|romania", "Bulgarian": "bulgarian|bulgaria",
    "Greek": "greek|greece", "Turkish": "turkish|turkey", "Russian": "russian|russia|soviet",
    "Ukrainian": "ukrainian|ukraine", "Serbian": "serbian|serbia", "Croatian": "croatian|croatia",
    "Bosnian": "bosnian|bosnia", "Slovenian": "slovenian|slovene|slovenia", "Israeli": "israeli|israel",
    "Egyptian": "egyptian|egypt", "Indian": "indian|india", "Pakistani": "pakistani|pakistan",
    "Bangladeshi": "bangladeshi|bangladesh", "Sri Lankan": "sri lankan|sri lanka", "Chinese": "chinese|china",
    "Taiwanese": "taiwanese|taiwan", "Japanese": "japanese|japan", "Korean": "korean|korea|south korea",
    "Filipino": "filipino|philippine|philippines", "Thai": "thai|thailand", "Vietnamese": "vietnamese|vietnam",
    "Indonesian": "indonesian|indonesia", "Malaysian": "malaysian|malaysia", "Iranian": "iranian|iran|persian",
    "Iraqi": "iraqi|iraq", "Lebanese": "lebanese|lebanon", "Mexican": "mexican|mexico",
    "Brazilian": "brazilian|brazil", "Argentine": "argentine|argentinian|argentina", "Chilean": "chilean|chile",
    "Colombian": "colombian|colombia", "Peruvian": "peruvian|peru", "Cuban": "cuban|cuba",
    "Venezuelan": "venezuelan|venezuela", "South African": "south african|south africa",
    "Nigerian": "nigerian|nigeria", "Kenyan": "kenyan|kenya", "Estonian": "estonian|estonia",
    "Latvian": "latvian|latvia", "Lithuanian": "lithuanian|lithuania", "Belarusian": "belarusian|belarus",
    "Georgian": "georgian", "Armenian": "armenian|armenia", "Algerian": "algerian|algeria",
    "Moroccan": "moroccan|morocco", "Tunisian": "tunisian|tunisia",
}
_FORM = {form: nation for nation, forms in _NATIONS.items() for form in forms.split("|")}
_WORD = re.compile(r"(?<![\w-])(" + "|".join(re.escape(f) for f in sorted(_FORM, key=len, reverse=True))
                   + r")(?![\w])", re.I)
_BORN = re.compile(r"(?<![\w-])[\w.]+-born\s+", re.I)  # "French-born American": the first is no nationality
_AUX = re.compile(r"^\s*(are|were|is|was|do|does|did|have|has|had)\b", re.I)
_SAME = re.compile(r"\bsame (?:nationality|country|citizenship)\b", re.I)
# the nationality of something else the two lead to ("Do both films have the directors from the same
# country?"): not on the two pages
_RELATED = re.compile(r"\b(?:whose|directors?|producers?|composers?|authors?|writers?|founders?) (?:of|from)\b"
                      r"|\bhave the (?:directors?|producers?|composers?|authors?|writers?|founders?)\b", re.I)


@dataclass(frozen=True)
class NationalityVerdict:
    pages: tuple[str, str]
    nations: tuple[frozenset[str], frozenset[str]]
    asked: str  # "same", or the nationality both are asked to have
    answer: str  # "Yes" or "No"


def nations_in(text: str) -> list[str]:
    """The nationalities a text names, in order ("Finnish-Swedish" names two; "French-born American"
    only American)."""
    text = _BORN.sub(" ", text)
    return [_FORM[m.group(1).lower()] for m in _WORD.finditer(text)]


def asked_of(question: str) -> str | None:
    """What a yes/no question asks of two things' nationality: "same", a nationality both should
    have ("American"), or None (another question)."""
    if not _AUX.match(question) or _RELATED.search(question):
        return None
    if _SAME.search(question):
        return "same"
    # "Are both A and B American?", "Were the bands A and B from the U.S.?": one nationality among the
    # question's last words, after a "both" or a "from"
    if not re.search(r"\b(?:both|from)\b", question, re.I):
        return None
    found = nations_in(" ".join(question.split("?")[0].split()[-NATIONALITY.question_tail_words:]))
    return found[0] if len(found) == 1 else None


def page_nations(page: Passage) -> frozenset[str]:
    """The nationality a page's opening gives its subject: the first one it names, with any other
    joined to it by a hyphen ("Finnish-Swedish")."""
    opening = re.sub(r"\([^()]*\)", " ", page.text[:NATIONALITY.opening_chars])  # "(born 1930, Glasgow)": a birthplace
    opening = re.sub(r"\w+-language\b", " ", opening)  # "an English-language Canadian film": a language
    opening = _BORN.sub(" ", opening)
    first = _WORD.search(opening)
    if first is None:
        return frozenset()
    joined = re.match(r"[\w.'’]+(?:-[\w.'’]+)+", opening[first.start():])  # "Finnish-Swedish"
    return frozenset(nations_in(joined.group(0).replace("-", " ") if joined else first.group(0)))


def named_pages(question: str, passages: Sequence[Passage]) -> list[Passage]:
    """The pages the question names by their titles, one per name (of "Ed Wood" and "Ed Wood
    (film)", the one without a kind after it: the name's own page), best-ranked first."""
    asking = Text.of(question)
    by_name: dict[str, list[Passage]] = {}
    for p in passages:
        titled = Text.of("", p.title or "")  # only its title is asked for: `writes_title` reads its name
        if titled.name and writes_title(asking, titled):
            by_name.setdefault(titled.name, []).append(p)
    chosen = {name: ([p for p in same if not DISAMBIGUATION.search(p.title or "")] or same)[0]
              for name, same in by_name.items()}
    # a name inside another ("Ed" in "Ed Wood") is not a thing of its own
    return [p for n, p in chosen.items() if not any(n != m and f" {n} " in f" {m} " for m in chosen)]


def decide(question: str, passages: Sequence[Passage]) -> NationalityVerdict | None:
    """Yes or No by the two named pages' nationalities, or None when they cannot say."""
    asked = asked_of(question)
    if asked is None:
        return None
    pages = named_pages(question, passages)
    if len(pages) != 2:
        return None
    nations = (page_nations(pages[0]), page_nations(pages[1]))
    if not nations[0] or not nations[1]:
        return None
    yes = bool(nations[0] & nations[1]) if asked == "same" else all(asked in n for n in nations)
    return NationalityVerdict((pages[0].title, pages[1].title), nations, asked, "Yes" if yes else "No")


def yes_no_to_decide(question: str, answer_text: str, passages: Sequence[Passage]) -> NationalityVerdict | None:
    """The verdict when the answer is a bare yes/no or "unknown" and the pages decide."""
    if not (bare_yes_no(answer_text) or (answer_text.strip() and is_unknown(answer_text))):
        return None
    return decide(question, passages)


def weigh_nationality(answer: Result, verdict: NationalityVerdict, ctx: RunContext,
                      parent: int | None = None) -> StrategyRun:
    """The answer kept or turned to the verdict's Yes or No (`yes_no_to_decide`)."""
    said = bare_yes_no(answer.text) or answer.text.strip()
    stated = "; ".join(f"{title}: {'/'.join(sorted(n))}" for title, n in zip(verdict.pages, verdict.nations))
    asked = "the same nationality" if verdict.asked == "same" else f"both {verdict.asked}"
    outcome = f"Kept “{said}”" if said == verdict.answer else f"“{said}” became “{verdict.answer}”"
    yield NationalityCheck(step=ctx.step(), parent=parent, summary=f"{outcome}: asked {asked} ({stated})",
                           answer=said, decided=verdict.answer, pages=list(verdict.pages),
                           nations=[sorted(n) for n in verdict.nations], asked=verdict.asked)
    if said == verdict.answer:
        return answer
    return turned(answer, NationalityDecide.mark, verdict.answer)


class NationalityDecide(AnswerCheck):
    option, stage, mark, detail = "nationality", "nationality", "nationality", NationalityCheck
    summary = "Compare the nationalities the two pages give"
    suits = "encyclopedic pages"  # a page whose opening states its subject's nationality

    def pending(self, question: str, answer: Result, ctx: RunContext) -> NationalityVerdict | None:
        return yes_no_to_decide(question, answer.text, answer.citations)

    def decide(self, question, answer, verdict, ctx, parent=None):
        return weigh_nationality(answer, verdict, ctx, parent=parent)
