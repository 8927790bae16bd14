"""How each kind of many-folders question is worded: several templates per kind of fact, picked by
the generator's seeded random choice, so that no method can be fitted to one wording."""
from __future__ import annotations

import random
import re

from .facts import Fact

# verbs a description may open with: "Specifies ..." (third person) or "Print ..." (an order)
BASE_VERBS = set((
    "specify set print display show use enable disable cause control determine define select force make allow "
    "limit suppress output write read list report add remove create delete change turn give return include "
    "exclude ignore skip keep treat override send check verify run execute prevent generate copy move request "
    "save load assume indicate toggle switch format test benchmark consider log go append replace compress "
    "decompress overwrite follow retry wait stop start sort count dump convert encode decode split join map "
    "restrict disallow permit bind connect configure match accept reject fill pad truncate wrap align identify "
    "specify open close lock unlock measure produce emit describe contain hold store ask prompt apply").split())

LOOKUP_THIRD = ("Which {thing} of {subject} {d}?", "In {subject}, what {thing} {d}?",
                "What's the {subject} {thing} that {d}?", "Tell me which {subject} {thing} {d}.")
LOOKUP_ORDER = ("Which {subject} {thing} would I use to {d}?", "I want {subject} to {d}. Which {thing} does that?",
                "What {thing} makes {subject} {d}?", "How do I get {subject} to {d}; what's the {thing}?")
LOOKUP_QUOTED = ('Which {subject} {thing} is described as "{desc}"?',
                 'The {subject} documentation describes one {thing} as "{desc}". Which one is it?',
                 'What is the name of the {subject} {thing} documented as "{desc}"?')
PEP_LOOKUP = ("Which PEP brought {desc} to {subject}?", "What's the number of the PEP behind \"{desc}\"?",
              "{desc} arrived in {subject}: which PEP was that?")
CHANGE_LOOKUP = ("Who contributed this {thing} in {subject}: \"{desc}\"?",
                 "According to the {subject} notes, who did the work on the {thing} \"{desc}\"?",
                 "Who is credited with the {thing} in {subject} where \"{desc}\"?")
VALUE_DEFAULT = ("What is the default value of the {term} {thing} in {subject}?",
                 "If I don't set {term}, what value does {subject} use?", "What does {subject}'s {term} default to?",
                 "What's {term}'s default in {subject}?")
VALUE_PARAM_DEFAULT = ("What is the default {thing} of {term}?", "If I leave out the {thing} of {term}, what is used?",
                       "What does the {thing} of {term} default to?")
VALUE_ADDED = ("In which Node.js version was {term} added?", "Since which version has Node.js had {term}?",
               "Which Node.js release first had {term}?")
VALUE_RELEASE = ("In which Python version did {term} arrive?", "Which Python release brought {term}?",
                 "{term} came with which version of Python?")
JOINS = ("{a}, and {b}", "Two things: {a}? And {b}", "{a}? Also, {b}")

# questions about a term the folder does not have (the answer: not in the documents)
MISSING_OPTION = ("What does the {term} option of {subject} do?", "What is the default value of {subject}'s {term} option?",
                  "When should I pass {term} to {subject}?", "How does {term} change what {subject} does?")
MISSING_SETTING = ("What does the {term} setting in {subject} control?", "What is the default for {term} in {subject}?",
                   "Which values can {term} take in {subject}?")
MISSING_METHOD = ("What does {term}() return?", "In which Node.js version was {term}() added?",
                  "What arguments does {term}() take?", "What does {term}() do?")
MISSING_PEP = ("What does {term} change in {subject}?", "Which release of Python brought {term}?",
               "What did {term} add in {subject}?")
MISSING_MODULE = ("What changed in the {term} module in {subject}?", "Who contributed the {term} changes in {subject}?")

FOLDER_WHICH = ("Which of my files mention {term}?", "Which documents talk about {term}?",
                "Do any of my files mention {term}?", "Where is {term} mentioned in my files?",
                "List my files that mention {term}.")
FOLDER_HOW_MANY = ("How many of my files mention {term}?", "How many documents talk about {term}?",
                   "How many of my files contain {term}?")
FOLDER_COUNT = ("How many {plural} do I have?", "How many {plural} are there in my folder?",
                "How many {plural} have I got?")
FOLDER_COUNT_PLACE = ("How many files are in my {place} folder?", "How many documents are there under {place}/?")
FOLDER_SUMMARY = ("Summarise {file}.", "Can you give me a short summary of {file}?", "What is {file} about? A few lines please.")


def pick(rng: random.Random, templates: tuple[str, ...]) -> str:
    return templates[rng.randrange(len(templates))]


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _verb_form(word: str) -> str:
    """'third' for 'Specifies', 'order' for 'Print', '' for anything else."""
    word = word.lower()
    if word in BASE_VERBS:
        return "order"
    stems = [word[:-3] + "y"] if word.endswith("ies") else []
    stems += [word[:-2], word[:-1]] if word.endswith("es") else [word[:-1]] if word.endswith("s") else []
    return "third" if any(stem in BASE_VERBS for stem in stems) else ""


def lookup_question(fact: Fact, rng: random.Random) -> str:
    desc = fact.text.rstrip(".:")
    if fact.thing == "PEP":
        return pick(rng, PEP_LOOKUP).format(desc=desc, subject=fact.subject)
    if fact.thing.endswith(" change"):
        return pick(rng, CHANGE_LOOKUP).format(desc=desc, subject=fact.subject, thing=fact.thing)
    words = desc.split()
    noun_phrase = re.match(r"(?i)^(do|don't|set to|if|list of)\b", desc) or (len(words) > 1 and words[1] == "of")
    form = "" if noun_phrase else _verb_form(words[0])
    if form == "third":
        template = pick(rng, LOOKUP_THIRD)
    elif form == "order":
        template = pick(rng, LOOKUP_ORDER)
    else:
        template = pick(rng, LOOKUP_QUOTED)
    return template.format(thing=fact.thing, subject=fact.subject, d=_lower_first(desc), desc=desc)


def value_question(fact: Fact, rng: random.Random) -> str:
    term = fact.term[0]
    if fact.text == "added":
        return pick(rng, VALUE_ADDED).format(term=term)
    if fact.text == "release":
        return pick(rng, VALUE_RELEASE).format(term=term)
    if fact.thing.endswith(" parameter"):
        return pick(rng, VALUE_PARAM_DEFAULT).format(thing=fact.thing, term=term)
    return pick(rng, VALUE_DEFAULT).format(term=term, thing=fact.thing, subject=fact.subject)


def question_for(fact: Fact, rng: random.Random) -> str:
    return lookup_question(fact, rng) if fact.kind == "lookup" else value_question(fact, rng)


def joined(first: str, second: str, rng: random.Random) -> str:
    """Two questions as one: "A, and b?"."""
    a, b = first.rstrip("?."), second.rstrip("?.")
    return pick(rng, JOINS).format(a=a, b=_lower_first(b)) + "?"
