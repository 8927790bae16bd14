"""The grounding encoder (issue 30): what it reads, its training groups, its place in the check as the
`encoder` option (and its ablation), and a clear error when its files are unusable."""
import random

import pytest

from index_builder.datasets import Paragraph, QAExample
from assistant.events.core import Passage
from assistant.grounding.verdict import SUPPORTED, GroundingRule, ground, shipped_trees
from assistant.grounding.features import encoder_columns, encoder_pair, readable_numbers
from research.judge_training.grounding_pairs import BRIDGE, PLANTED, POSITIVE, SWAPPED, question_groups
from research.judge_training.relevance_data import Question
from assistant.strategies import make_strategy
from models.errors import ModelError
from models.judges.grounding import load_encoder

HERON = Passage("heron", "Project Heron builds birdwatching kits for schools. Project Heron is led by Mira Okafor.",
                "Project Heron")
OTTER = Passage("otter", "Project Otter films kelp forests along the coast. Project Otter is led by Tomas Lindqvist.",
                "Project Otter")
HAS_ENCODER = "claim_encoder" in shipped_trees().trees


class ScriptedEncoder:
    """Scores by a rule on the passage text; records what it was asked."""

    def __init__(self, rule):
        self.rule, self.calls = rule, []

    def score(self, first, seconds):
        self.calls.append((first, list(seconds)))
        return [self.rule(second) for second in seconds]


def test_the_encoder_reads_numbers_one_way():
    assert readable_numbers("holds twelve people on the 15th; 1,000 bikes") == "holds 12 people on the 15; 1000 bikes"
    said, written = encoder_pair("How many?", "It holds twelve people.", "Handbook", "The room  holds 12 people.")
    assert said.startswith("It holds 12 people. | How many?") and written == "Handbook: The room holds 12 people."
    assert encoder_columns([0.2, 0.9]) == [[0.2, pytest.approx(-0.7)], [0.9, 0.0]]


def test_training_groups_put_the_support_first_against_its_hard_negatives():
    example = QAExample("q1", "Who leads the project that films kelp forests?", ["Tomas Lindqvist"], [
        Paragraph("Kelp films", "The kelp forest films are made by Project Otter.", True),
        Paragraph("Project Otter", "Project Otter is led by Tomas Lindqvist with Ada Brun.", True),
        Paragraph("Project Heron", "Project Heron is led by Mira Okafor.", False),
        Paragraph("Bikes", "The bike shed was repainted in May.", False)])
    groups = question_groups(Question("f", example), random.Random(0), ["Canberra"])
    assert len(groups) == 2  # the answer alone, and said as a sentence
    for group in groups:
        kinds = [p.kind for p in group]
        assert kinds[0] == POSITIVE and [p.label for p in group] == [1] + [0] * (len(group) - 1)
        assert {BRIDGE, PLANTED, SWAPPED} <= set(kinds)
        assert "Tomas Lindqvist" in group[0].question and group[0].passage.startswith("Project Otter:")
        planted = next(p for p in group if p.kind == PLANTED)
        assert "Tomas Lindqvist" in planted.passage and "Otter" not in planted.passage
        swapped = next(p for p in group if p.kind == SWAPPED)
        assert "Tomas Lindqvist" not in swapped.question and swapped.passage == group[0].passage


def test_yes_no_questions_make_no_encoder_groups():
    example = QAExample("q2", "Is Otter led by Tomas?", ["yes"],
                        [Paragraph("Project Otter", "Project Otter is led by Tomas.", True)], kind="yes/no")
    assert question_groups(Question("f", example), random.Random(0), ["x"]) == []


def test_the_option_switches_the_encoder_and_its_ablation_reads_words_alone():
    assert make_strategy("default").grounding == GroundingRule(True, False, 0.65, 0.75)
    assert make_strategy("default:encoder=true").grounding == GroundingRule(True, True, 0.65, 0.75)
    assert make_strategy("default:coverage=0,names=0").grounding == GroundingRule(True, False, 0.0, 0.0)
    assert make_strategy("default:ground=false,encoder=true").grounding is None
    asked = ScriptedEncoder(lambda text: 0.9)
    ground("Tomas Lindqvist", "Who leads Project Otter?", [HERON, OTTER])
    assert asked.calls == []
    if HAS_ENCODER:
        ground("Tomas Lindqvist", "Who leads Project Otter?", [HERON, OTTER], GroundingRule(encoder=asked))
        assert asked.calls == [("Tomas Lindqvist | Who leads Project Otter?",
                                [f"{p.title}: {p.text}" for p in (HERON, OTTER)])]


@pytest.mark.skipif(not HAS_ENCODER, reason="grounding.json has no claim_encoder trees")
def test_the_encoders_score_moves_the_claim_score():
    from assistant.grounding.verdict import support_of
    from assistant.grounding.features import Text

    question, texts = "Who leads Project Otter?", [Text.of(p.text, p.title) for p in (HERON, OTTER)]
    believed = support_of(question, "Tomas Lindqvist", texts, shipped_trees(), lambda claim: [0.02, 0.95])
    doubted = support_of(question, "Tomas Lindqvist", texts, shipped_trees(), lambda claim: [0.02, 0.02])
    assert believed.passages[:1] == [1] and believed.score > doubted.score
    encoder = ScriptedEncoder(lambda text: 0.95 if "Otter" in text else 0.02)
    assert ground("Tomas Lindqvist", question, [HERON, OTTER], GroundingRule(encoder=encoder)).grounding == SUPPORTED


@pytest.mark.skipif(not HAS_ENCODER, reason="grounding.json has no claim_encoder trees")
def test_the_shipped_encoder_prefers_the_passage_about_the_subject():
    from assistant.grounding.verdict import encoder_scores, shipped_encoder

    heron, otter = encoder_scores(shipped_encoder(), "Who leads Project Otter?", "Tomas Lindqvist", [HERON, OTTER])
    assert otter > heron
    planted = Passage("p", HERON.text.replace("Mira Okafor", "Tomas Lindqvist"), HERON.title)
    _, right, wrong = encoder_scores(shipped_encoder(), "Who leads Project Otter?", "Tomas Lindqvist",
                                     [HERON, OTTER, planted])
    assert right > wrong


def test_an_unusable_encoder_folder_is_one_clear_error(tmp_path):
    with pytest.raises(ModelError) as caught:
        load_encoder(tmp_path / "missing")
    message = str(caught.value)
    assert "grounding encoder" in message and "grounding_encoder_train" in message
    assert "train-relevance" not in message


def test_claim_sets_are_narrowed_to_what_a_reader_reads():
    from research.judge_training.grounding_encoder_fit import narrowed
    from research.judge_training.grounding_train import ClaimSet

    paragraphs = [Paragraph(f"Filler {i}", f"Nothing here {i}.", False) for i in range(8)]
    paragraphs[2] = Paragraph("Project Otter", "Project Otter is led by Tomas Lindqvist.", True)
    paragraphs[6] = Paragraph("Otter films", "Who leads the kelp films? Project Otter does.", False)
    example = QAExample("q", "Who leads Project Otter?", ["Tomas Lindqvist"], paragraphs)
    claim_set = ClaimSet("Tomas Lindqvist", [(p.title, p.text) for p in paragraphs],
                         {i: int(i == 2) for i in range(8)})
    small = narrowed(Question("f", example), claim_set, read=3)
    titles = [title for title, _ in small.passages]
    assert len(titles) == 3 and "Project Otter" in titles and "Otter films" in titles  # support, then the closest
    assert sorted(small.labels.values()) == [0, 0, 1] and small.labels[titles.index("Project Otter")] == 1
    planted = ClaimSet("Tomas Lindqvist", claim_set.passages, {7: 0}, "planted")
    assert "Filler 7" in [title for title, _ in narrowed(Question("f", example), planted, read=3).passages]


def test_the_encoders_questions_are_never_the_held_out_ones():
    from research.judge_training.grounding_encoder_train import encoder_trained_on, three_way

    questions = [Question("f", QAExample(str(i), f"q{i}", ["a"])) for i in range(200)]
    encoder, trees, held = three_way(questions)
    assert encoder and trees and held
    assert all(encoder_trained_on(q.id) for q in encoder) and not any(encoder_trained_on(q.id) for q in trees + held)
