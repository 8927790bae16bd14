"""Training groups for the grounding encoder: (claim with its question, passage) -> supports?, from
training questions with support labels.

One group per supporting paragraph that holds the gold answer and per claim form (the answer alone,
and said as a sentence: the question, then the answer). The group's first pair is that paragraph with
the claim; its negatives are the hard cases a word check gets wrong:
- the bridge: the question's other supporting paragraph, about the same question but not holding
  the answer;
- planted: the answer put in place of a name in a paragraph about something else (same shape,
  another subject: "Mira Okafor" in the Heron project's page when Otter's leader is asked);
- swapped: another name of the same kind from the supporting paragraph itself as the claim (the
  right passage, the wrong answer), or another question's answer when it has none;
- a distractor: the other paragraph that shares the most of the question's words.
Yes/no questions are left out (the claim "yes" says nothing a passage can hold; the trees judge them).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from assistant.grounding.citations import text_for_matching
from assistant.grounding.features import Text, encoder_pair
from .relevance_data import Question
from .relevance_pairs import RelevancePair

NAME = re.compile(r"\b[A-Z][\w'-]+(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'-]+)*\b")
NUMBER = re.compile(r"\b\d[\d,.]*\b")
POSITIVE, BRIDGE, PLANTED, SWAPPED, DISTRACTOR = "support", "bridge", "planted", "swapped", "distractor"
MAX_POSITIVES = 2  # supporting paragraphs per question used as positives


@dataclass(frozen=True)
class ClaimForms:
    alone: str
    sentence: str


def claim_forms(question: str, claim: str) -> ClaimForms:
    return ClaimForms(claim, f"{question.strip().rstrip('?')} {claim}.")


def _holds(text: str, answer: str) -> bool:
    return Text.of(text).holds_phrase(Text.of(answer))


def _spans(text: str, like: str) -> list[str]:
    """Spans of `text` of the same kind as the answer `like` (numbers for a number, else names)."""
    pattern = NUMBER if NUMBER.fullmatch(like.strip()) else NAME
    gold = text_for_matching(like)
    return list(dict.fromkeys(s for s in pattern.findall(text)
                              if text_for_matching(s) and text_for_matching(s) not in gold and gold not in text_for_matching(s)))


def question_groups(question: Question, rng: random.Random, other_answers: list[str]) -> list[list[RelevancePair]]:
    example = question.example
    answer = example.answers[0] if example.answers else ""
    if example.kind == "yes/no" or not answer or text_for_matching(answer) in ("", "unknown", "yes", "no"):
        return []
    paragraphs = [p for p in example.paragraphs if p.text.strip()]
    holding = [p for p in paragraphs if p.is_supporting and _holds(f"{p.title} {p.text}", answer)]
    if not holding:
        return []  # the answer is written otherwise than in its paragraphs: no clean label
    q_words = set(Text.of(example.question).tokens)
    others = [p for p in paragraphs if not p.is_supporting]
    bridges = [p for p in paragraphs if p.is_supporting and p not in holding]
    distractors = sorted(others, key=lambda p: -len(q_words & Text.of(p.text, p.title).bag))
    groups = []
    for paragraph in holding[:MAX_POSITIVES]:
        swaps = _spans(paragraph.text, answer) or [rng.choice(other_answers)]
        for form in ("alone", "sentence"):
            claim = getattr(claim_forms(example.question, answer), form)

            def pair(claim_text: str, title: str, text: str, label: int, kind: str) -> RelevancePair:
                first, second = encoder_pair(example.question, claim_text, title, text)
                return RelevancePair(question.id, first, second, label, kind)

            group = [pair(claim, paragraph.title, paragraph.text, 1, POSITIVE)]
            if bridges:
                bridge = rng.choice(bridges)
                group.append(pair(claim, bridge.title, bridge.text, 0, BRIDGE))
            plantable = [p for p in others if NAME.search(p.text) or NUMBER.search(p.text)]
            if plantable:
                target = rng.choice(plantable)
                spans = _spans(target.text, answer) or NAME.findall(target.text) or NUMBER.findall(target.text)
                planted = target.text.replace(rng.choice(spans), answer, 1)
                group.append(pair(claim, target.title, planted, 0, PLANTED))
            wrong = getattr(claim_forms(example.question, rng.choice(swaps)), form)
            group.append(pair(wrong, paragraph.title, paragraph.text, 0, SWAPPED))
            if distractors:
                near = rng.choice(distractors[:3])
                group.append(pair(claim, near.title, near.text, 0, DISTRACTOR))
            groups.append(group)
    return groups


def build_groups(questions: list[Question], seed: int = 0) -> list[list[RelevancePair]]:
    rng = random.Random(seed)
    answers = [q.example.answers[0] for q in questions if q.example.answers]
    return [g for question in questions for g in question_groups(question, rng, answers)]
