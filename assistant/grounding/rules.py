"""What an answer's citations must hold together before it is presented as supported, and which
of the passages found for a sentence it rests on: the question's words weighed by their rarity
(`question_coverage`), its names (`names_coverage`), the pages a comparison names
(`compares_its_pages`, `rests_on`), no page that repeats the others (`passages_needed`) and no answer that
only restates the question (`restates_question`). grounding.py finds the passages; these rules
judge what they hold.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from models.judges.word_rarity import WordRarity

from .features import Text, content_tokens, word_held_in, links_any, name_words, writes_title

SAME_FACT = {"birth": ("born",), "born": ("birth",), "death": ("died", "die"), "died": ("death", "die"),
             "die": ("death", "died"), "dead": ("died", "death", "die")}


@dataclass
class SentenceSupport:
    sentence: str
    passages: list[int] = field(default_factory=list)  # indices into the passages read, best first
    score: float = 0.0  # the best claim score
    claims: int = 0  # passages[:claims] hold the claim; the rest complete it (the bridge)


def question_coverage(question: str, cited: Sequence[Text], rarity: WordRarity | None = None) -> float:
    """The share of the question's own words that the cited passages hold together, a word's
    ending aside (1.0 for a question of stopwords only); with `rarity`, each word weighed by how
    rare it is, so that a page about another subject holding the question's common words ("High
    School", "city") but not its rare ones ("Faith Lutheran") covers little of it. Without it, an
    answer whose supporting paragraphs were hidden was often still presented as supported, mostly
    on one passage about another subject (lab/notes/history.md, "Question coverage" and "Trust: rare
    words weigh more")."""
    asked = content_tokens(Text.of(question).tokens)
    bag = set().union(*(t.bag for t in cited)) if cited else set()
    weights = [rarity.weight(w) if rarity else 1.0 for w in asked]
    total = sum(weights)
    covered = sum(wt for w, wt in zip(asked, weights) if word_held_in(w, bag) or written_otherwise(w, bag))
    return covered / total if total else 1.0


def written_otherwise(word: str, bag: set[str]) -> bool:
    """Whether a page writes the question's word in another form of the same fact: "place of birth"
    is "was born in" on the page, "date of death" "died on" (a comparison or a chain's last hop
    asks so; without it such a page did not hold the question's words: lab/notes/history.md,
    "Trust: a comparison rests on the pages it compares")."""
    return any(form in bag for form in SAME_FACT.get(word, ()))


def compares_its_pages(question: Text, cited: Sequence[Text]) -> bool:
    """Whether the cited pages are two or more pages the question names by their titles, and no
    other: the things a comparison asks about ("What profession does Matt Thiessen and George
    Thorogood have in common?" - "musician"). The question's frame ("profession", "in common",
    "coastal") is often on neither page, yet the pages are the question's own subjects, not another
    subject sharing its words, which is what `coverage` guards against. Two pages of one name ("127
    Hours" and "127 Hours (soundtrack)") are one thing, not a comparison."""
    return len({t.name for t in cited}) >= 2 and all(writes_title(question, t) for t in cited)


def rests_on(support: SentenceSupport, texts: Sequence[Text], asked: Sequence[str],
             question: Text | None = None) -> list[int]:
    """What a sentence rests on: the passages holding its claim and the bridges chained to them
    (one names the other's title, or both name one person or thing beyond the question's names
    `asked`), directly or through one another. A page cited beside the claim but not linked to it is
    about something else, unless the sentence names only what the question names (a comparison:
    "Who is older, A or B?" - "B" rests on both pages, which need not name each other), or, where
    the question offers a choice, the page is one the question names by its title: "Who was born
    first, Arthur Conan Doyle or Penelope Lively?" - "Arthur Ignatius Conan Doyle" rests on Penelope
    Lively's page too (the full name is no name of the question's)."""
    holding, rest = list(support.passages[:support.claims]), list(support.passages[support.claims:])
    if set(name_words(support.sentence)) <= set(asked):
        return holding + rest
    group = list(holding)
    while joining := [b for b in rest if links_any(texts, b, group, asked)]:
        group += joining
        rest = [b for b in rest if b not in joining]
    if question is not None and offers_choice(question):
        group += [b for b in rest if writes_title(question, texts[b])]
    return group


def offers_choice(question: Text) -> bool:
    """Whether the question asks to choose between what it names ("A or B?")."""
    return " or " in question.joined()


def names_coverage(asked: Sequence[str], resting: Sequence[tuple[str, Sequence[int]]],
                   texts: Sequence[Text]) -> float:
    """The share of the question's names and numbers (`asked`) held by what the sentences rest on
    (`resting`: each sentence with `rests_on` its passages); 0.0 when a sentence states a name or
    number that what it rests on leaves out. A passage about another subject can hold most of a
    question's plain words ("budget", "project") but not its name ("Otter"): "Project Otter is led
    by Mira Okafor", or "240,000 pounds" as Otter's budget, read off Project Heron's page, is not
    made whole by citing Project Otter's page beside it."""
    counted: set[str] = set()
    for sentence, passages in resting:
        bag = set().union(*(texts[i].bag for i in passages))
        if not all(word_held_in(w, bag) for w in name_words(sentence)):
            return 0.0
        counted |= bag
    return sum(word_held_in(w, counted) for w in asked) / len(asked) if asked else 1.0


def passages_needed(question: str, sentence: str, passages: Sequence[int], texts: Sequence[Text]) -> list[int]:
    """The passages to cite for a sentence, less those that add no word of the question or of the
    sentence to what the others hold (from the last to the second): a sibling page beside the one
    holding the claim ("1983 Tennessee Volunteers" beside the 1984 team's page) repeats it. A page
    the question names is kept ("Both A and B are in which city?": A's page may name B's city and B),
    and so is a page another cited page names by its title (the next link of the chain: "Gum Wall"
    names "San Luis Obispo, California"). The verdict does not change: what is left holds every word
    the pages held together."""
    q = Text.of(question)
    wanted = list(dict.fromkeys(content_tokens(q.tokens) + content_tokens(Text.of(sentence).tokens)))
    kept = list(passages)
    for i in reversed(kept[1:]):
        if any(writes_title(t, texts[i]) for t in (q, *(texts[j] for j in kept if j != i))):
            continue
        others = set().union(*(texts[j].bag for j in kept if j != i))
        if not any(word_held_in(w, texts[i].bag) and not word_held_in(w, others) for w in wanted):
            kept.remove(i)
    return kept


def restates_question(answer: str, question: str) -> bool:
    """Whether the answer is a phrase the question itself states, to a question that offers no
    choice ("Which series featured the host of "The Joe Schmo Show"?" - "The Joe Schmo Show"): such
    answers were wrong on the training questions. "Who was born first, A or B?" - "A" is
    a choice; "Argand lamp" for "this type of lamp patented by Aimé Argand" is no phrase of it."""
    said = Text.of(answer)
    asked = Text.of(question)
    return bool(content_tokens(said.tokens)) and asked.holds_phrase(said) and not offers_choice(asked)
