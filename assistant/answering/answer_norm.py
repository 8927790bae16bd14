"""Answer normalisation (SQuAD v1.1): what makes two answers the same answer.

Evaluation's metrics score with it, and the strategies that vote on or compare answers (ReFeed,
RQ-RAG) use it so that 'The Beatles.' and 'beatles' count as one.
"""
from __future__ import annotations

import re
import string

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def squad_normalize(text: str) -> str:
    """SQuAD v1.1 normalisation: lower case, no punctuation, no articles, single spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())
