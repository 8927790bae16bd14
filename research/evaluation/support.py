"""Citations against a dataset's support labels, and hiding a question's own support (--drop-support).

A cited passage is gold when it comes from one of the question's supporting paragraphs: the same
title, and its text inside that paragraph's (a passage is a chunk of its paragraph). From that:
citation precision (cited passages that are gold) and support recall (answers citing every gold
supporting paragraph). --drop-support hides each question's supporting paragraphs from every search
of its run (`SupportHidden`, the run's retriever wrapped), so nothing in the index answers it: the
measure of honesty.
"""
from __future__ import annotations

from typing import Callable, Sequence

from assistant.grounding.citations import text_for_matching
from assistant.events.core import Passage
from index_builder.datasets import Paragraph, QAExample

PREFIX = 80  # characters of a passage's normalised text looked for in the paragraph's
HIDDEN_MARGIN = 10  # extra depth a search goes when some passages are hidden from it


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


class SupportHidden:
    """A retriever with some passages (a question's own support) out of reach: each search goes
    HIDDEN_MARGIN deeper, so that k passages remain once the hidden ones are left out, and the
    files of the index (retrieval/index_files.py) leave them out by `hides`. Everything else,
    cached values too, is the wrapped retriever's: the answer path cannot tell the two apart."""

    def __init__(self, retriever, hides: Callable[[Passage], bool]):
        vars(self).update(retriever=retriever, hides=hides)

    def __getattr__(self, name: str):
        return getattr(self.retriever, name)

    def __setattr__(self, name: str, value) -> None:  # a cache kept on the retriever stays there
        setattr(self.retriever, name, value)

    def search(self, query: str, k: int) -> list[Passage]:
        return [p for p in self.retriever.search(query, k + HIDDEN_MARGIN) if not self.hides(p)][:k]


def hiding_support(retriever, example: QAExample):
    """The retriever for one question of a --drop-support run: its supporting paragraphs hidden
    (None stays None: a run without an index has nothing to hide)."""
    return None if retriever is None else SupportHidden(retriever, support_hider(example))
