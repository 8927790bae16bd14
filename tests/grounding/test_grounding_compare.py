"""A comparison rests on the pages of what it compares (grounding_rules.rests_on with a choice,
grounding_rules.compares_its_pages), and a page writes "born" where the question asks "place of
birth" (grounding_rules.written_otherwise)."""
from dataclasses import replace

import assistant.grounding.rules as grounding_rules
from assistant.events.core import Passage
from assistant.grounding.verdict import SUPPORTED, UNSUPPORTED, GroundingRule, ground
from assistant.grounding.rules import (SentenceSupport, compares_its_pages, offers_choice, question_coverage, rests_on,
                                       written_otherwise)
from assistant.grounding.features import Text, name_words
from assistant.strategies import make_strategy
from models.judges.word_rarity import shipped_rarity

DEFAULT = make_strategy("default").grounding


class FixedTrees:
    """Trees whose scores are given: claim scores per passage, hop scores per candidate bridge, so
    that what the check cites depends on the rules under test alone."""
    thresholds = {"claim": 0.5, "hop": 0.3}
    trees = {"claim": None, "hop": None}

    def __init__(self, claim, hop=()):
        self.claim, self.hop = list(claim), list(hop)

    def score(self, kind, rows):
        given = self.claim if kind == "claim" else self.hop
        return (given + [0.0] * len(rows))[:len(rows)]


DOYLE = Passage("doyle", "Sir Arthur Ignatius Conan Doyle (22 May 1859 - 7 July 1930) was a British writer and "
                "physician, the creator of Sherlock Holmes.", "Arthur Conan Doyle")
LIVELY = Passage("lively", "Penelope Lively (born 17 March 1933) is a British writer of fiction for children and "
                 "adults.", "Penelope Lively")
OTHER = Passage("other", "The Lively Arts was a British television programme on music and theatre.", "The Lively Arts")
BORN_FIRST = "Who was born first, Arthur Conan Doyle or Penelope Lively?"


def texts_of(*passages):
    return [Text.of(p.text, p.title) for p in passages]


def test_a_choice_is_a_question_with_or():
    assert offers_choice(Text.of(BORN_FIRST))
    assert offers_choice(Text.of("Which magazine is older, Gallery or Dime Magazine?"))
    assert not offers_choice(Text.of("Who leads Project Otter?"))


def test_a_full_name_answer_to_a_choice_rests_on_both_pages_the_question_names():
    texts, asked = texts_of(DOYLE, LIVELY, OTHER), name_words(BORN_FIRST)
    # the claim on Doyle's page, Lively's page and another page as bridges; none names another
    support = SentenceSupport("Arthur Ignatius Conan Doyle", [0, 1, 2], 0.9, 1)
    assert rests_on(support, texts, asked) == [0]  # without the question: "Ignatius" is no name of it
    assert rests_on(support, texts, asked, Text.of(BORN_FIRST)) == [0, 1]  # not "The Lively Arts"
    # no choice, no exception: a bridge the question names but the claim's page does not link
    plain = "Which writer, born in 1859, wrote about Arthur Conan Doyle and Penelope Lively?"
    assert rests_on(support, texts, name_words(plain), Text.of(plain)) == [0]


def test_the_check_cites_both_compared_pages_and_its_ablation_does_not():
    trees = FixedTrees(claim=[0.9, 0.1, 0.1], hop=[0.8, 0.1])
    both = ground("Arthur Ignatius Conan Doyle", BORN_FIRST, [DOYLE, LIVELY, OTHER], DEFAULT, trees=trees)
    assert both.grounding == SUPPORTED and [p.id for p in both.cited] == ["doyle", "lively"]
    alone = ground("Arthur Ignatius Conan Doyle", BORN_FIRST, [DOYLE, LIVELY, OTHER], replace(DEFAULT, compare=False),
                   trees=trees)
    assert [p.id for p in alone.cited] != ["doyle", "lively"]
    assert make_strategy("default:compare=false").grounding == replace(DEFAULT, compare=False)
    assert DEFAULT.compare is True and GroundingRule().compare is True


CAME_FIRST = "Which came out first, Dinosaur or McFarland, USA?"
DINOSAUR = Passage("dino", "Dinosaur is a 2000 American computer-animated film produced by Walt Disney Feature "
                   "Animation.", "Dinosaur (film)")
MCFARLAND = Passage("mcf", "McFarland, USA is a 2015 American sports drama film directed by Niki Caro.",
                    "McFarland, USA")
RAPTOR = Passage("rap", "Dinosaur Jr. is an American rock band formed in Amherst, Massachusetts, in 1984.", "Dinosaur Jr.")


def test_a_pick_the_trees_doubt_rests_on_the_pages_of_the_options():
    """An option's own page holds little of the question's frame ("came out first"), so the claim
    trees doubt it; the answer naming one option rests on its page and the other option's."""
    trees = FixedTrees(claim=[0.05, 0.4, 0.02])
    picked = ground("Dinosaur", CAME_FIRST, [RAPTOR, MCFARLAND, DINOSAUR], DEFAULT, trees=trees)
    assert picked.grounding == SUPPORTED and {p.id for p in picked.cited} == {"dino", "mcf"}
    other = ground("McFarland, USA", CAME_FIRST, [RAPTOR, MCFARLAND, DINOSAUR], DEFAULT, trees=trees)
    assert other.grounding == SUPPORTED and {p.id for p in other.cited} == {"dino", "mcf"}
    # its ablation, an answer naming neither option, and the option's own page missing: nothing rests
    assert ground("Dinosaur", CAME_FIRST, [RAPTOR, MCFARLAND, DINOSAUR], replace(DEFAULT, compare=False),
                  trees=trees).grounding == UNSUPPORTED
    assert ground("Toy Story", CAME_FIRST, [RAPTOR, MCFARLAND, DINOSAUR], DEFAULT, trees=trees).grounding == UNSUPPORTED
    assert ground("Dinosaur", CAME_FIRST, [RAPTOR, MCFARLAND], DEFAULT, trees=trees).grounding == UNSUPPORTED
    plain = "Which film about a Dinosaur came out in 2000?"
    assert ground("Dinosaur", plain, [RAPTOR, MCFARLAND, DINOSAUR], DEFAULT, trees=trees).grounding == UNSUPPORTED


IN_COMMON = "What profession does Matt Thiessen and George Thorogood have in common?"
THIESSEN = Passage("mt", "Matthew Arnold Thiessen is a Canadian-born American musician, the lead singer of the band "
                   "Relient K.", "Matt Thiessen")
THOROGOOD = Passage("gt", "George Thorogood is an American musician, singer and songwriter from Wilmington, "
                    "Delaware.", "George Thorogood")
ROCKER = Passage("rk", "Relient K is an American rock band formed in Canton, Ohio, by Matt Thiessen.", "Relient K")


def test_the_pages_a_comparison_names_cover_its_frame_words():
    texts = texts_of(THIESSEN, THOROGOOD, ROCKER)
    # "profession" and "in common" are on neither page: coverage alone would say most of it is missing
    assert question_coverage(IN_COMMON, texts[:2], shipped_rarity()) < DEFAULT.coverage
    assert compares_its_pages(Text.of(IN_COMMON), texts[:2])
    assert not compares_its_pages(Text.of(IN_COMMON), texts[:1])  # one page compares nothing
    assert not compares_its_pages(Text.of(IN_COMMON), [texts[0], texts[2]])  # Relient K is not asked about
    film, album = texts_of(Passage("f", "127 Hours is a 2010 film starring James Franco.", "127 Hours"),
                           Passage("s", "127 Hours is the soundtrack of the film.", "127 Hours (soundtrack)"))
    assert not compares_its_pages(Text.of("Flyboys stars which actor nominated for 127 Hours?"), [film, album])
    trees = FixedTrees(claim=[0.9, 0.8, 0.1])
    shared = ground("musician", IN_COMMON, [THIESSEN, THOROGOOD, ROCKER], DEFAULT, trees=trees)
    assert shared.grounding == SUPPORTED and [p.id for p in shared.cited] == ["mt", "gt"]
    held_to_coverage = ground("musician", IN_COMMON, [THIESSEN, THOROGOOD, ROCKER], replace(DEFAULT, compare=False),
                              trees=trees)
    assert held_to_coverage.grounding == UNSUPPORTED
    # a page about another subject is still held to the coverage
    other = ground("musician", IN_COMMON, [THIESSEN, ROCKER], DEFAULT, trees=FixedTrees(claim=[0.9, 0.8]))
    assert other.grounding == UNSUPPORTED


BIRTHPLACE = "What is the place of birth of the director of film Quiet Harbour?"
FILM = Passage("film", "Quiet Harbour is a 2017 Canadian documentary film directed by Denys Arcand.", "Quiet Harbour")
DIRECTOR = Passage("dir", "Denys Arcand (born 1941 in Deschambault, Quebec) is a French Canadian film director.",
                   "Denys Arcand")


def test_a_page_writes_born_where_the_question_asks_the_place_of_birth(monkeypatch):
    assert written_otherwise("birth", {"born"}) and written_otherwise("death", {"died"})
    assert not written_otherwise("birth", {"birthday"}) and not written_otherwise("place", {"born"})
    texts, rarity = texts_of(FILM, DIRECTOR), shipped_rarity()
    with_forms = question_coverage(BIRTHPLACE, texts, rarity)
    monkeypatch.setattr(grounding_rules, "SAME_FACT", {})
    assert question_coverage(BIRTHPLACE, texts, rarity) < with_forms
