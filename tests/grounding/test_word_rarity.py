"""The grounding check's word rarity: the table, its builder, and coverage weighed by it (a page
about another subject that holds a question's common words but not its rare ones covers little)."""
import json

import pytest

from assistant.events.core import Passage
from assistant.grounding.verdict import SUPPORTED, UNSUPPORTED, GroundingRule, ground
from assistant.grounding.rules import question_coverage
from assistant.grounding.features import Text
from research.judge_training.word_rarity_build import main as build_main, rarity_table
from models.errors import AssistantError, ModelError
from models.judges.word_rarity import WordRarity, shipped_rarity

QUESTION = "Which city is the Quillfeather Lutheran High School near?"
SIBLING = Passage("sibling", "Paso Robles High School is the only high school located in the city of Paso Robles.",
                  "Paso Robles High School")
OWN = Passage("own", "Quillfeather Lutheran High School is a private school near the city of Oakridge.",
              "Quillfeather Lutheran High School")


def test_the_table_counts_each_distinct_paragraph_once_and_leaves_out_words_seen_once():
    table = rarity_table([("A", "the school of the city"), ("A", "the school of the city"),
                          ("B", "a school in a town"), ("C", "Lutheran school")])
    assert table.documents == 3
    assert table.counts["school"] == 3 and "lutheran" not in table.counts and "town" not in table.counts
    assert table.weight("school") == pytest.approx(0.0)  # in every paragraph: says nothing of the subject
    assert table.weight("lutheran") == table.weight("never-seen") > table.weight("school")
    with pytest.raises(AssistantError):
        rarity_table([])


def test_coverage_weighs_the_questions_rare_words_over_its_common_ones():
    cited = [Text.of(SIBLING.text, SIBLING.title)]
    plain = question_coverage(QUESTION, cited)  # city, high, school of city, quillfeather, lutheran, high, school, near
    rare = question_coverage(QUESTION, cited, shipped_rarity())
    assert plain == pytest.approx(3 / 6)
    assert rare < 0.4 < plain  # "Quillfeather" and "Lutheran" weigh most and the page lacks both
    assert question_coverage(QUESTION, [Text.of(OWN.text, OWN.title)], shipped_rarity()) == pytest.approx(1.0)


def test_a_page_about_another_school_does_not_support_the_answer():
    # coverage 50%: the page holds half of the question's words by count, a third by rarity
    rule = GroundingRule(coverage=0.5, names=0.0)  # the names rule off: coverage alone decides
    sibling = ground("Paso Robles", QUESTION, [SIBLING], rule)
    assert sibling.grounding == UNSUPPORTED and sibling.cited == []
    own = ground("Oakridge", QUESTION, [SIBLING, OWN], rule)
    assert own.grounding == SUPPORTED and [p.id for p in own.cited] == ["own"]
    counted = ground("Paso Robles", QUESTION, [SIBLING], GroundingRule(coverage=0.5, names=0.0, rarity=False))
    assert counted.grounding == SUPPORTED  # the ablation: by count the page holds half the question


def test_the_default_strategy_weighs_by_rarity_and_the_option_switches_it_off():
    from assistant.strategies import make_strategy

    assert make_strategy("default").grounding.rarity is True
    assert make_strategy("default").grounding.coverage == pytest.approx(0.65)
    assert make_strategy("default:rarity=false").grounding.rarity is False


def test_the_shipped_table_loads_and_ranks_names_rarer_than_plain_words():
    table = shipped_rarity()
    assert table.documents > 1000 and len(table.counts) > 1000
    assert table.weight("lutheran") > table.weight("school") > table.weight("film") > table.weight("american")


def test_an_unreadable_table_is_one_clear_error(tmp_path):
    broken = tmp_path / "word_rarity.json"
    for text in ("{not json", json.dumps({"documents": 5}), json.dumps({"documents": 0, "counts": {}}),
                 json.dumps({"documents": 5, "counts": {"school": "many"}})):
        broken.write_text(text, encoding="utf-8")
        with pytest.raises(ModelError, match="word rarity table .* is unreadable") as caught:
            WordRarity.load(broken)
        assert "\n" not in str(caught.value)
    table = WordRarity(10, {"school": 4})
    (tmp_path / "ok.json").write_text(json.dumps(table.to_json()), encoding="utf-8")
    assert WordRarity.load(tmp_path / "ok.json").weight("school") == pytest.approx(table.weight("school"))


def test_the_builder_says_what_is_missing_in_one_line(tmp_path, capsys):
    assert build_main(["--data", str(tmp_path / "nowhere"), "--out", str(tmp_path / "t.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no shared data folder") and err.count("\n") == 1
    assert not (tmp_path / "t.json").exists()
