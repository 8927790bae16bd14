"""Distil judge training data from a QA dataset with the reader and the index (RA-ISF appendix A).

- self-knowledge: the reader answers closed-book; "know" when the answer matches a gold alias
  (normalised exact match, or the gold inside the answer), else "unknow";
- relevance: the dataset's supporting-paragraph flags where it has them, else the reader
  judge's verdicts on the passages the index retrieves for the question;
- decomposition: the dataset's decomposition (MuSiQue) where present, else the reader's, asked
  only for questions the reader does not know (the ones RA-ISF would decompose).
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Iterator

from models.judges import t5_format as fmt

from assistant.answering import prompts
from .data import JudgeExample
from .musique import rewrite_decomposition

# At most this many non-supporting paragraphs per supporting one: MuSiQue has ~18 distractors
# per 2 supporting paragraphs, and a judge trained on that learns to say "irrelevance".
NEGATIVES_PER_POSITIVE = 2


class Distiller:
    def __init__(self, reader, reader_judge, retriever=None, k: int = 5, max_answer_tokens: int = 32):
        self.reader = reader
        self.reader_judge = reader_judge
        self.retriever = retriever
        self.k = k
        self.max_answer_tokens = max_answer_tokens
        self.counts: Counter = Counter()

    def examples(self, qa_examples) -> Iterator[JudgeExample]:
        for qa in qa_examples:
            self.counts["questions"] += 1
            knows = yield from self._self_knowledge(qa)
            yield from self._relevance(qa)
            yield from self._decomposition(qa, knows)

    def _self_knowledge(self, qa):
        from ..evaluation.metrics import score

        answer = self.reader.generate(prompts.closed_book(qa.question), max_tokens=self.max_answer_tokens,
                                      temperature=0.0).text
        scores = score(answer, qa.answers, qa.kind)
        knows = bool(scores["em"] or scores["acc"])
        label = fmt.LABELS[fmt.KNOWS][0 if knows else 1]
        self.counts[f"knows:{label}"] += 1
        yield JudgeExample(fmt.KNOWS, qa.question, label, id=qa.id, source="reader")
        return knows

    def _relevance(self, qa) -> Iterator[JudgeExample]:
        positive, negative = fmt.LABELS[fmt.RELEVANCE]
        flagged = [p for p in qa.paragraphs if p.is_supporting is not None and p.text.strip()]
        if flagged and any(p.is_supporting for p in flagged):
            supporting = [p for p in flagged if p.is_supporting]
            others = [p for p in flagged if not p.is_supporting]
            random.Random(qa.id).shuffle(others)  # deterministic per question
            chosen = supporting + others[:NEGATIVES_PER_POSITIVE * len(supporting)]
            for p in chosen:
                self.counts["relevance:dataset"] += 1
                yield JudgeExample(fmt.RELEVANCE, qa.question, positive if p.is_supporting else negative,
                                   passage=_with_title(p.title, p.text), id=qa.id, source="dataset")
            return
        if self.retriever is None:
            self.counts["relevance:skipped (no flags, no index)"] += 1
            return
        passages = self.retriever.search(qa.question, self.k)
        verdicts = self.reader_judge.relevant(qa.question, [p.text for p in passages]) if passages else []
        for passage, verdict in zip(passages, verdicts):
            self.counts["relevance:reader"] += 1
            yield JudgeExample(fmt.RELEVANCE, qa.question, positive if verdict.yes else negative,
                               passage=_with_title(passage.title, passage.text), id=qa.id, source="reader")

    def _decomposition(self, qa, knows: bool) -> Iterator[JudgeExample]:
        subs = fmt.parse_decomposition(fmt.decomposition_target(rewrite_decomposition(qa.sub_questions)),
                                       qa.question) if len(qa.sub_questions) >= 2 else []
        source = "dataset"
        if not subs and not knows:
            subs, source = self.reader_judge.decompose(qa.question), "reader"
        if not subs:
            return
        self.counts[f"decompose:{source}"] += 1
        yield JudgeExample(fmt.DECOMPOSE, qa.question, fmt.decomposition_target(subs), id=qa.id, source=source)


def _with_title(title: str, text: str) -> str:
    return f"{title}: {text}" if title and not text.startswith(title) else text
