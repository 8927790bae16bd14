"""A follow-up question rewritten into one that stands alone, from the thread's recent turns
(RQ-RAG's rewrite): "Who founded it?" after a question about a clinic becomes "Who founded the
Harbor Clinic?". Only the rewritten question goes on to retrieval and the answer prompt."""
from __future__ import annotations

import re
from typing import Sequence

from ..answering.generate import clean_answer
from .threads import Turn

REWRITE_TOKENS = 64
ANSWER_CHARS = 300  # of each earlier answer: what a pronoun can point to, not the whole text
QUESTION_CHARS = 500  # of each earlier question: a saved thread may hold any size (issue 54)
_MARKER = re.compile(r"\s*\[\d+\]")
# Words that usually point back into the conversation; without one, and with a long enough
# question, the question already stands alone and the reader is not asked.
_REFERS = re.compile(r"\b(it|its|it's|he|him|his|she|her|hers|they|them|their|theirs|this|that|these|those|"
                     r"there|then|the same|the former|the latter|one|ones|else|also|too|more|another|other)\b",
                     re.I)

SYSTEM = ("You rewrite the user's last question so that it can be understood without the "
          "conversation. Replace every pronoun or vague reference (it, he, she, they, there, that...) "
          "with the name or thing it stands for in the conversation. Keep everything else as asked. "
          "Reply with the rewritten question only.")


def needs_rewrite(question: str, history: Sequence[Turn]) -> bool:
    return bool(history) and (bool(_REFERS.search(question)) or len(question.split()) <= 3)


def rewrite_messages(history: Sequence[Turn], question: str) -> list[dict]:
    """The reader's prompt: the recent turns (answers cut short, markers out), then the question."""
    lines = []
    for turn in history:
        lines.append(f"User: {(turn.standalone or turn.question)[:QUESTION_CHARS]}")
        answer = _MARKER.sub("", turn.answer).strip()
        lines.append(f"Assistant: {answer[:ANSWER_CHARS]}")
    conversation = "\n".join(lines)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Conversation:\n{conversation}\n\nLast question: {question}\n\n"
                                        "Rewritten question:"}]


def rewrite(reader, history: Sequence[Turn], question: str) -> str:
    """The question standing alone; the question itself when it needs no rewrite or the reader
    gives back nothing usable."""
    if not needs_rewrite(question, history):
        return question
    text = clean_answer(reader.generate(rewrite_messages(history, question), max_tokens=REWRITE_TOKENS).text)
    text = text.strip().strip('"“”').strip()
    text = re.sub(r"^(rewritten question|question)\s*:\s*", "", text, flags=re.I).strip()
    if "?" in question and text.endswith("?") and 3 <= len(text) <= 4 * len(question) + 200:
        return text
    return with_context(history[-1], question)  # a small reader answered instead of rewriting


def with_context(last: Turn, question: str) -> str:
    """The follow-up with what it follows, when the reader gave no usable rewrite: the earlier
    question and the start of its answer still steer retrieval to the right passages."""
    answer = _MARKER.sub("", last.answer).strip()[:80]
    return f"{question} (following “{last.question[:QUESTION_CHARS]}” → {answer})"  # the user's words: a fallback never nests
