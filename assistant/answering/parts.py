"""A question with several parts, split into questions that each ask one thing.

"What are the bug addresses for bash and for GNU ed?" asks the same thing of two subjects; "What
is the version and release date of bzip2?" asks two things of one subject; "Who wrote GNU bc and
when was it released?" asks two questions. A reader given one prompt for all of it tends to answer
half; each part asked alone is answered from its own passages and cited on its own. Only these
shapes are split, by pattern and without a model: a one-fact question stays whole.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .settings import ANSWERING

_WH = r"(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|does|do|did|can|has|have)"
# "... and roughly how much slower does it run?": a word before the second's question word
_HEDGE = r"(?:roughly|about|approximately|exactly|also|then)"
_PREP = r"(?:with|in|for|on|about|from|using)"
_SETTING = rf"{_PREP}\s+[^,?]+,\s+"  # "in readelf, " before a question word
# "Who wrote GNU bc and when was it released?": a second question after "and" (after a setting
# both share: "With tail -f, how long does it wait, and how many lines ...?", or a statement:
# "I want csplit to use FORMAT. Which option does that, and which option ...?"); the second may
# have its own setting ("..., and in readelf, what option displays ...?")
_TWO_QUESTIONS = re.compile(rf"^(?P<lead>{_PREP}\s+(?P<setting>[^,?]+),\s+|[^?]+?\.\s+)?"
                            rf"(?P<a>{_WH}\b.+?)\s*[,;]?\s+and\s+(?P<b>(?:{_SETTING})?(?:{_HEDGE}\s+)?{_WH}\b.+?)\??$",
                            re.I)
# "... for bash and for GNU ed?": one ask, two subjects each with its own preposition
_TWO_SUBJECTS = re.compile(r"^(?P<head>.+?\b(?P<prep>for|of|in|about|by))\s+(?P<a>.+?)\s*,?\s+and\s+"
                           r"(?:(?P=prep)\s+)(?P<b>.+?)\??$", re.I)
# "What is the version and release date of bzip2?": two short facets of one subject
_TWO_FACETS = re.compile(r"^(?P<wh>what|which)\s+(?P<verb>is|are|was|were)\s+(?:the\s+|its\s+)?"
                         r"(?P<a>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+and\s+(?:the\s+|its\s+)?"
                         r"(?P<b>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?P<prep>of|for|in)\s+(?P<x>.+?)\??$", re.I)

# "What are bc's largest output base and largest input base?": two facets of a named subject
_OWNED_FACETS = re.compile(r"^(?P<wh>what|which)\s+(?P<verb>is|are|was|were)\s+(?P<x>[\w.+-]+)'s\s+"
                           r"(?P<a>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+and\s+(?:(?:the|its)\s+)?"
                           r"(?P<b>[\w'-]+(?:\s+[\w'-]+){0,3}?)\??$", re.I)
# "For the gzip command: default compression level, and the address for bug reports?"
_HEADED = re.compile(r"^(?P<head>(?:for|in|about|on)\s+[^:,?]+):\s*(?P<a>[^,?]+?)\s*,?\s+and\s+(?P<b>[^?]+?)\??$",
                     re.I)
# "What signal do kill and timeout each send by default?": one ask of two subjects, "each"
_EACH = re.compile(r"^(?P<wh>.+?)\s+(?P<aux>do|did|are|were|have)\s+(?P<a>[\w.+-]+(?:\s+[\w.+-]+){0,2}?)\s+and\s+"
                   r"(?P<b>[\w.+-]+(?:\s+[\w.+-]+){0,2}?)\s+each\s+(?P<rest>.+?)\??$", re.I)
# "What version number and date does the zpipe.c example carry?": two things asked, one verb after
_TWO_THINGS = re.compile(r"^(?P<wh>what|which)\s+(?P<a>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+and\s+"
                         r"(?P<b>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?P<rest>(?:does|did|is|was|has)\s+.+?)\??$",
                         re.I)
# "... of unzip and of openssl do my manuals describe?": the verb phrase both subjects share
_SHARED_VERB = re.compile(r"^(?P<b>.+?)\s+(?P<rest>(?:do|does|did|is|are|was|were|has|have)\s+.+)$", re.I)
_SINGULAR = {"do": "does", "are": "is", "were": "was", "have": "has", "did": "did"}


@dataclass(frozen=True)
class Part:
    question: str  # the part asked alone
    label: str  # what tells this part's answer apart in the combined answer


_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')


def parts_of(question: str) -> list[Part]:
    """The question's parts, each a question of its own; [] when it asks one thing. A quotation
    ("described as "Operate on a PID and do not launch a task"") is never split: the shapes are
    matched with each one held as a placeholder."""
    quoted: list[str] = []

    def hold(m: re.Match) -> str:
        quoted.append(m[0])
        return f'"{len(quoted) - 1}"'

    def put_back(text: str) -> str:
        return re.sub(r'"(\d+)"', lambda m: quoted[int(m[1])] if int(m[1]) < len(quoted) else m[0], text)

    held = _QUOTED.sub(hold, " ".join(question.split()))
    return [Part(put_back(p.question), _one_clause(put_back(p.label))) for p in _parts(held)]


def _parts(text: str) -> list[Part]:
    if len(asked := separate_questions(text)) > 1:
        return [Part(q, _label(q)) for q in asked]
    if (m := _TWO_FACETS.match(text)):
        x = m["x"]
        return [Part(f"{m['wh']} {m['verb']} the {facet} {m['prep']} {x}?", f"{facet[:1].upper()}{facet[1:]}")
                for facet in (m["a"], m["b"])]
    if (m := _OWNED_FACETS.match(text)):
        verb = _SINGULAR.get(m["verb"].lower(), m["verb"])
        return [Part(f"{m['wh']} {verb} {m['x']}'s {facet}?", _capital(facet)) for facet in (m["a"], m["b"])]
    if (m := _TWO_SUBJECTS.match(text)) and _short(m["a"]) and _short(m["b"]):
        second, tail = m["b"], ""
        if (shared := _SHARED_VERB.match(second)):
            second, tail = shared["b"], f" {shared['rest']}"
        return [Part(f"{m['head']} {subject}{tail}?", f"For {subject}") for subject in (m["a"], second)]
    if (m := _HEADED.match(text)):
        return [Part(f"{m['head']}: {facet}?", _capital(facet)) for facet in (m["a"], m["b"])]
    if (m := _EACH.match(text)):
        verb = _SINGULAR.get(m["aux"].lower(), m["aux"])
        return [Part(f"{m['wh']} {verb} {subject} {m['rest']}?", f"For {subject}") for subject in (m["a"], m["b"])]
    if (m := _TWO_THINGS.match(text)):
        return [Part(f"{m['wh']} {thing} {m['rest']}?", _capital(thing)) for thing in (m["a"], m["b"])]
    if (m := _TWO_QUESTIONS.match(text)):
        first, second = m["a"].rstrip(" ,?"), m["b"].rstrip(" ,?")
        labels = [_capital(q) for q in (first, second)]
        first = f"{m['lead'] or ''}{first}"  # the setting stays with the first; a second naming nothing gets it too
        if _PRONOUN.search(labels[1]):
            subject = m["setting"] or _subject(first)
            alone = _PRONOUN.sub(lambda p: subject + ("'s" if p[0].lower() == "its" else ""), labels[1])
        elif (not _asks_whole(second) and len(_own_words(second)) <= ANSWERING.bare_part_words
              and (context := _context(first, second))):
            # "... and what's the bug address?" names nothing of its own: asked of what the first names
            # (and "what does gzip.open use?" asks nothing of its own: what the first asks)
            alone = f"{labels[1]} ({context})"
        else:
            alone = labels[1]
        if m["lead"] and not m["setting"]:  # a statement before: "I want csplit to use FORMAT; which option does that"
            labels[0] = _label(first)
        return [Part(f"{_capital(first)}?", labels[0]), Part(f"{alone.rstrip('?')}?", labels[1])]
    return [Part(q, _label(q)) for q in joined_questions(text)]


# "Two things: ...", "Quick questions:": a lead-in that only announces what follows
_ANNOUNCED = re.compile(r"^(?:[\w-]+\s+){0,3}(?:things|questions?)\s*[:,-]\s*", re.I)
# "And ...", "Also, ...", "Plus ...": what joins a question to the one before
_JOINED = re.compile(r"^(?:and|also|plus|then)\b[,]?\s*(?:also\b,?\s*)?", re.I)


def separate_questions(text: str) -> list[str]:
    """A text of several questions, each ending with its question mark ("X? Also, Y?"; "Two
    things: I want ls to list all. Which option does that? And ...?"), as those questions, each
    with the statement before it; [text] when it holds one question (or one with a tail that asks
    nothing). A question of fewer than three words ("Right?") belongs to the one before."""
    text = _ANNOUNCED.sub("", text.strip())
    ends = [m.end() for m in re.finditer(r"\?[\"'”’)]*\s+", text)]
    pieces = [text[a:b].strip() for a, b in zip([0, *ends], [*ends, len(text)]) if text[a:b].strip()]
    asked: list[str] = []
    for piece in pieces:
        alone = _capital(_JOINED.sub("", piece))
        if asked and (not piece.endswith("?") or len(alone.split()) < 3):
            asked[-1] = f"{asked[-1]} {piece}"
        else:
            asked.append(alone)
    return asked if len(asked) > 1 else [text]


# a clause that asks: a question word after the start or a sentence's or clause's end
_ASKING_CLAUSE = re.compile(rf"(?:^|[.:;,?]\s+)(?:{_HEDGE}\s+)?{_WH}\b", re.I)
# a question word anywhere ("PEP 646 came with which version"); not `_WH`'s verbs, which statements hold too
_WH_WORD = re.compile(r"\b(?:who|whom|whose|what|when|where|which|how)\b", re.I)


def joined_questions(text: str) -> list[str]:
    """Two questions joined by ", and" where what follows asks on its own ("..., and which PEP
    brought X?"; "..., and in readelf, what option ...?"; "..., and I want wipefs to print in
    parsable format. Which option does that?") and what comes before asks too ("PEP 646 came with
    which version"): the two questions; [] otherwise."""
    for m in re.finditer(r"\s*[,;]\s+and\s+", text):
        first, second = text[:m.start()].strip(), text[m.end():].strip()
        if (_WH_WORD.search(first) and _ASKING_CLAUSE.search(second)
                and min(len(first.split()), len(second.split())) >= 3):
            return [f"{_capital(first).rstrip('?')}?", f"{_capital(second).rstrip('?')}?"]
    return []


def _label(question: str) -> str:
    """A part's question as its label ("I want ls to list all; which option does that")."""
    return re.sub(r"[.!?;]+\s+(\w)", lambda m: f"; {m[1].lower()}", question.rstrip(" ?.!"))


def _one_clause(label: str) -> str:
    """A label as one sentence with no colon, even where it quotes ("Reverse operation: convert"):
    the joined answer's "LABEL: ANSWER." sentences are how its parts are told apart."""
    return re.sub(r"(?<=\w)[.!?]+\s+", "; ", label).replace(":", ",")


def questions_by_label(question: str) -> dict[str, str]:
    """Each part's label in the joined answer ("How long does it wait") to the part asked alone
    ("With tail -f, how long does it wait?"): what a check of that part's answer is to ask."""
    return {part.label: part.question.rstrip("?") for part in parts_of(question)}


_PRONOUN = re.compile(r"\b(?:its|it|they|them)\b", re.I)
_LAST_OBJECT = re.compile(r".*\b(?:of|for|about|by|in|on)\s+(.+)$", re.I)


def _subject(question: str) -> str:
    """What a question is about, for the pronoun of the question after it ("Who wrote GNU bc" ->
    "GNU bc"): the words after its last preposition, else after its question word and verb."""
    if (m := _LAST_OBJECT.match(question)):
        return m[1]
    words = question.split()
    # "What does grep do": its verb comes last
    if len(words) > ANSWERING.verb_last_above_words and words[1].lower() in _AUXILIARIES:
        words = words[:-1]
    return " ".join(words[2:]) or question


_AUXILIARIES = {"does", "do", "did", "is", "are", "was", "were", "can", "will", "should", "has", "have"}


_COMMON = {"which", "what", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was", "were",
           "does", "do", "did", "the", "a", "an", "my", "of", "for", "in", "on", "to", "from", "by", "with",
           "and", "or", "it", "its", "this", "that", "version", "manual", "page", "file", "default", "use",
           "uses", "give", "gives", "s"}


def _own_words(question: str) -> list[str]:
    return [w for w in re.findall(r"[\w.+-]+", question.lower()) if w not in _COMMON]


# what a part asks of a subject ("the bug address", "who wrote"), as against what names one
_ATTRIBUTES = {"bug", "bugs", "address", "addresses", "report", "reports", "email", "version", "versions",
               "date", "author", "authors", "maintainer", "maintains", "licence", "license", "number",
               "release", "released", "homepage", "website", "url", "copyright", "year", "wrote", "written",
               "program", "command", "tool", "level", "exit", "status", "signal", "option", "flag"}


def _asks_whole(question: str) -> bool:
    """It asks something ("wrote") of something it names ("join"): "Who wrote join?" stands alone;
    "what's the bug address?" names nothing, "what does Python's gzip.open use?" asks nothing."""
    own = _own_words(question)
    return any(w in _ATTRIBUTES for w in own) and any(w not in _ATTRIBUTES for w in own)


def _context(first: str, second: str) -> str:
    """The first part's own words that the second lacks ("diffutils diff"): what a second part
    that names nothing is asked of."""
    have = set(re.findall(r"[\w.+-]+", second.lower()))
    words = [w for w in re.findall(r"[\w.+-]+", first) if w.lower() not in _COMMON and w.lower() not in have]
    return " ".join(dict.fromkeys(words))


def _capital(text: str) -> str:
    return f"{text[:1].upper()}{text[1:]}"


def _short(subject: str) -> bool:
    return 0 < len(subject.split()) <= ANSWERING.short_subject_words


def combined(labelled: list[tuple[Part, str]]) -> str:
    """The parts' answers as one answer, a sentence each: "For bash: bug-bash@gnu.org. For GNU ed: ..."."""
    return " ".join(f"{part.label}: {answer.strip().rstrip('.')}." for part, answer in labelled)
