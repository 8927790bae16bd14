"""A page that repeats what the other cited pages hold is not cited (grounding/rules.py: needed): the sibling
page beside the one holding the claim; a page the question names is kept."""
from dataclasses import replace

from assistant.events.core import Passage
from assistant.grounding.verdict import SUPPORTED, GroundingRule, ground
from assistant.grounding.rules import passages_needed
from assistant.grounding.features import Text
from assistant.strategies import make_strategy

QUESTION = "Which city is the Kestrel Lutheran High School in?"
OWN = Passage("own", "Kestrel Lutheran High School is a private Lutheran high school in Oakridge, Oregon.",
              "Kestrel Lutheran High School")
SIBLING = Passage("sibling", "Kestrel Lutheran Academy is a Lutheran school in Oakridge, beside the high school.",
                  "Kestrel Lutheran Academy")
STATE = Passage("state", "Oregon is a state in the Pacific Northwest.", "Oregon")


class BothClaimPages:
    """Trees that pass the first two passages as holding the claim and no bridge: the check's
    choice of pages is fixed, so what is cited depends on `passages_needed` alone."""
    thresholds = {"claim": 0.5, "hop": 0.3}
    trees = {"claim": None, "hop": None}

    def score(self, kind, rows):
        return [0.9, 0.8, 0.1][:len(rows)] if kind == "claim" else [0.0] * len(rows)


def texts_of(*passages):
    return [Text.of(p.text, p.title) for p in passages]


def test_a_page_adding_no_word_of_the_question_or_answer_is_not_cited():
    texts = texts_of(OWN, SIBLING, STATE)
    assert passages_needed(QUESTION, "Oakridge", [0, 1], texts) == [0]
    # the other way round the school's own page adds no word either, but the question names it
    assert passages_needed(QUESTION, "Oakridge", [1, 0], texts) == [1, 0]
    # a page holding a word of the answer the others lack stays ("Oregon")
    assert passages_needed(QUESTION, "Oakridge, Oregon", [1, 2], texts) == [1, 2]
    assert passages_needed(QUESTION, "Oakridge", [0], texts) == [0]


def test_a_page_the_question_names_is_kept_though_another_page_holds_its_words():
    question = "Both Aldermoor College and Brackenfield School are located in which town?"
    first = Passage("a", "Aldermoor College is a college in Wexham, near Brackenfield School.", "Aldermoor College")
    second = Passage("b", "Brackenfield School is a school in Wexham.", "Brackenfield School")
    texts = texts_of(first, second)
    assert passages_needed(question, "Wexham", [0, 1], texts) == [0, 1]
    unnamed = Passage("c", "Wexham Grammar is a school in Wexham.", "Wexham Grammar")
    assert passages_needed(question, "Wexham", [0, 1, 2], texts_of(first, second, unnamed)) == [0, 1]


def test_the_check_cites_the_sibling_only_with_repeats_on():
    rule = make_strategy("default").grounding
    assert rule.repeats is False
    lean = ground("Oakridge", QUESTION, [OWN, SIBLING, STATE], rule, trees=BothClaimPages())
    assert lean.grounding == SUPPORTED and [p.id for p in lean.cited] == ["own"]
    assert lean.marked_text == "Oakridge [1]"
    both = ground("Oakridge", QUESTION, [OWN, SIBLING, STATE], replace(rule, repeats=True), trees=BothClaimPages())
    assert both.grounding == SUPPORTED and [p.id for p in both.cited] == ["own", "sibling"]
    assert make_strategy("default:repeats=true").grounding == replace(rule, repeats=True)
    assert GroundingRule().repeats is False


def test_a_page_another_cited_page_names_by_title_is_kept_as_the_chains_next_link():
    question = "Which county is the Quarry Steps alley in?"
    alley = Passage("alley", "Quarry Steps is an alley in Ashby, Dunmore County.", "Quarry Steps")
    town = Passage("town", "Ashby is a market town in Dunmore County.", "Ashby")
    sibling = Passage("lane", "Quarry Lane is an alley in Dunmore County.", "Quarry Lane")
    texts = texts_of(alley, town, sibling)
    assert passages_needed(question, "Dunmore County", [0, 1], texts) == [0, 1]  # the alley's page names Ashby
    assert passages_needed(question, "Dunmore County", [0, 2], texts) == [0]  # nothing names Quarry Lane
