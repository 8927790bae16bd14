"""What the T5 judge reads and writes: RA-ISF inputs, label strings, the decomposition format.

One definition shared by distillation, training, calibration and inference, so that the
model is always asked exactly what it was trained on.
"""
from __future__ import annotations

import re
from typing import Sequence

from models.judges.judge import parse_sub_questions

KNOWS, RELEVANCE, DECOMPOSE = "knows", "relevance", "decompose"
TASKS = (KNOWS, RELEVANCE, DECOMPOSE)

# Label pairs (positive, negative), as in RA-ISF. Verdicts compare the likelihoods of the two
# whole label sequences; "relevance" is a substring of "irrelevance", so never substring-match.
LABELS = {KNOWS: ("know", "unknow"), RELEVANCE: ("relevance", "irrelevance")}

# Instructions after RA-ISF appendix G; kept short because T5 truncates at MAX_INPUT_TOKENS.
_KNOWS = ("Can you use your own knowledge to solve this problem? Answer know if you know, unknow if "
          "you need additional knowledge to solve it. The problem is: {q}")
_RELEVANCE = ("Is the passage relevant to the question and sufficient to answer it? Answer relevance "
              "or irrelevance. Question: {q} Passage: {p}")
_DECOMPOSE = "Please break down this question into several sub-questions and list them. Question: {q}"

MAX_INPUT_TOKENS = 512
MAX_DECOMPOSITION_TOKENS = 128


def knows_input(question: str) -> str:
    return _KNOWS.format(q=_one_line(question))


def relevance_input(question: str, passage: str) -> str:
    return _RELEVANCE.format(q=_one_line(question), p=_one_line(passage))


def decompose_input(question: str) -> str:
    return _DECOMPOSE.format(q=_one_line(question))


def build_input(task: str, question: str, passage: str = "") -> str:
    if task == KNOWS:
        return knows_input(question)
    if task == RELEVANCE:
        return relevance_input(question, passage)
    if task == DECOMPOSE:
        return decompose_input(question)
    raise ValueError(f"unknown judge task {task!r} (known: {', '.join(TASKS)})")


def decomposition_target(sub_questions: Sequence[str]) -> str:
    """A numbered list on one line: T5's vocabulary has no newline and no braces."""
    return " ".join(f"{i}. {_one_line(q)}" for i, q in enumerate(sub_questions, 1))


_ITEM_START = re.compile(r"\s+(?=\d+[.)]\s)")


def parse_decomposition(text: str, question: str = "") -> list[str]:
    """Put each numbered item back on its own line, then parse strictly ([] = cannot decompose)."""
    return parse_sub_questions(_ITEM_START.sub("\n", text.strip()), question)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
