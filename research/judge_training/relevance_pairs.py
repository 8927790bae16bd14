"""(question, passage, supporting?) pairs for the relevance judge, and each question's search pool.

A question's pool is what hybrid search returns for it over the pooled corpus of its dataset
file (every paragraph of every question of the file, one index per file, the same index
`assistant index dataset FILE` builds). The judge meets such pools at run time, so they give
its hard negatives in training and its calibration and early metrics on the held-out slice.

Labels are the dataset's own paragraph flags, matched by paragraph identity (title and text),
never by title alone: MuSiQue and a pooled corpus hold different paragraphs under one title.
No pair ever carries a paragraph of a report or reserved question, as a positive or a negative.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from index_builder.dataset_corpus import PooledParagraph
from models.judges.relevance import passage_text

from index_builder.datasets import QAExample
from .relevance_data import Question

POSITIVE, DISTRACTOR, HARD = "support", "distractor", "hard"


@dataclass(frozen=True)
class PoolPassage:
    key: str  # PooledParagraph.key
    title: str
    text: str


@dataclass(frozen=True)
class RelevancePair:
    question_id: str
    question: str
    passage: str  # as the judge reads it: passage_text(title, text)
    label: int  # 1 supporting, 0 not
    kind: str  # POSITIVE, DISTRACTOR or HARD


def paragraph_key(title: str, text: str) -> str:
    return PooledParagraph(title.strip(), " ".join(text.split())).key


def supporting_keys(question: Question) -> set[str]:
    return {paragraph_key(p.title, p.text) for p in question.example.paragraphs if p.is_supporting}


def key_of_path(path: str) -> str:
    """The paragraph key of an indexed dataset passage (its path is 'title #key')."""
    return path.rsplit(" #", 1)[-1]


def excluded_keys(examples: Iterable[QAExample]) -> set[str]:
    """Every paragraph of these (report and reserved) questions."""
    return {paragraph_key(p.title, p.text) for e in examples for p in e.paragraphs if p.text.strip()}


def search_pools(questions: list[Question], data_dir: Path, shared_data: Path, embedder, depth: int,
                 on_progress: Callable[[str], None] | None = None) -> dict[str, list[PoolPassage]]:
    """Hybrid top-`depth` over each question's file's pooled corpus (indexes built once, reused)."""
    from index_builder.dataset_corpus import build_dataset_corpus
    from index_builder.store import IndexStore

    from assistant.retrieval.retriever import HybridRetriever

    pools: dict[str, list[PoolPassage]] = {}
    for name in sorted({q.file for q in questions}):
        def progress(p, name=name):
            if on_progress:
                on_progress(f"indexing {name}: {p.files_done}/{p.total_files} paragraphs")

        index, _ = build_dataset_corpus(Path(shared_data) / name, data_dir, embedder, on_progress=progress)
        retriever = HybridRetriever(IndexStore.open(index), embedder, candidates=depth)
        mine = [q for q in questions if q.file == name]
        for number, question in enumerate(mine, 1):
            pools[question.id] = [PoolPassage(key_of_path(p.path), p.title, p.text)
                                  for p in retriever.search(question.example.question, depth)]
            if on_progress and number % 50 == 0:
                on_progress(f"searching {name}: {number}/{len(mine)} questions")
    return pools


def question_pairs(question: Question, pool: list[PoolPassage], negatives_per_positive: int,
                   excluded: set[str], rng: random.Random) -> list[RelevancePair]:
    """Positives, then at most negatives_per_positive negatives for each: hard negatives from the
    pool (best ranked first) and the question's own distractors (pool-ranked ones first),
    alternating, so that both kinds are in every question's share."""
    own = {}
    for p in question.example.paragraphs:
        if p.text.strip():
            own.setdefault(paragraph_key(p.title, p.text), p)
    support = supporting_keys(question)
    support_titles = {own[k].title.strip() for k in support if k in own}
    rank = {passage.key: i for i, passage in enumerate(pool)}
    distractors = [k for k in own if k not in support and k not in excluded]
    rng.shuffle(distractors)
    distractors.sort(key=lambda k: rank.get(k, len(pool)))  # stable: unranked ones stay shuffled
    # A pooled paragraph under a supporting title may well hold the same facts: not a negative.
    hard = [p for p in pool if p.key not in own and p.key not in excluded and p.title.strip() not in support_titles]

    def pair(title: str, text: str, label: int, kind: str) -> RelevancePair:
        return RelevancePair(question.id, question.example.question, passage_text(title, text), label, kind)

    pairs = [pair(own[k].title, own[k].text, 1, POSITIVE) for k in own if k in support and k not in excluded]
    budget = negatives_per_positive * len(pairs)
    negatives: list[RelevancePair] = []
    hard_iter, own_iter = iter(hard), iter(distractors)
    while len(negatives) < budget:
        added = False
        for source in (hard_iter, own_iter):
            item = next(source, None)
            if item is None or len(negatives) >= budget:
                continue
            if isinstance(item, PoolPassage):
                negatives.append(pair(item.title, item.text, 0, HARD))
            else:
                negatives.append(pair(own[item].title, own[item].text, 0, DISTRACTOR))
            added = True
        if not added:
            break
    return pairs + negatives


def build_pairs(questions: list[Question], pools: dict[str, list[PoolPassage]], negatives_per_positive: int,
                excluded: set[str], seed: int) -> list[RelevancePair]:
    rng = random.Random(seed)
    return [pair for q in questions
            for pair in question_pairs(q, pools.get(q.id, []), negatives_per_positive, excluded, rng)]
