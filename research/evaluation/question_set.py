"""A set of questions matched by id or by normalised text: how the data rules keep reserved and
report questions out of training, and how `eval --exclude` keeps them out of a reported run."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from index_builder.datasets import QAExample, load_dataset
from .metrics import squad_normalize


class QuestionSet:
    """Ids and normalised texts of a set of questions: the membership test of the data rules."""

    def __init__(self, examples: Iterable[QAExample] = ()):
        self.ids: set[str] = set()
        self.texts: set[str] = set()
        for example in examples:
            self.add(example)

    def add(self, example: QAExample) -> None:
        self.ids.add(str(example.id))
        self.texts.add(squad_normalize(example.question))

    def __contains__(self, example: QAExample) -> bool:
        return str(example.id) in self.ids or squad_normalize(example.question) in self.texts

    def __len__(self) -> int:
        return len(self.ids)


def questions_in(files: Iterable[Path]) -> QuestionSet:
    """Every question of the dataset files (each read as `eval` reads a dataset)."""
    return QuestionSet(e for path in files for e in load_dataset(path))


def without(examples: list[QAExample], excluded: QuestionSet) -> list[QAExample]:
    """The examples, in order, less those in `excluded` (by id or normalised text)."""
    return [e for e in examples if e not in excluded]
