"""Citations against a dataset's support labels, and hiding a question's own support (--drop-support).

A cited passage is gold when it comes from one of the question's supporting paragraphs: the same
title, and its text inside that paragraph's (a passage is a chunk of its paragraph). From that:
citation precision (cited passages that are gold) and support recall (answers citing every gold
supporting paragraph). --drop-support hides each question's supporting paragraphs from every search
of its run (RunContext.hidden), so nothing in the index answers it: the measure of honesty.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..grounding.citations import text_for_matching
from ..events.core import Passage
from .datasets import Paragraph, QAExample

PREFIX = 80  # characters of a passage's normalised text looked for in the paragraph's


def supporting(example: QAExample) -> list[Paragraph]:
    return [p for p in example.paragraphs if p.is_supporting]


def _from(passage: Passage, paragraph: Paragraph) -> bool:
    if text_for_matching(passage.title) != text_for_matching(paragraph.title):
        return False
    text, whole = text_for_matching(passage.text), text_for_matching(paragraph.text)
    return not text or text[:PREFIX] in whole or whole[:PREFIX] in text


def support_hider(example: QAExample) -> Callable[[Passage], bool]:
    """Whether a passage comes from one of the example's supporting paragraphs."""
    gold = supporting(example)
    return lambda passage: any(_from(passage, p) for p in gold)


def citation_record(example: QAExample, cited: Sequence[Passage]) -> dict:
    """The result record's citation fields: which citations are gold, and whether all gold is cited;
    {} when the dataset has no support labels."""
    gold = supporting(example)
    if not gold:
        return {}
    return {"cited_gold": [any(_from(c, p) for p in gold) for c in cited],
            "support_cited": all(any(_from(c, p) for c in cited) for p in gold)}
