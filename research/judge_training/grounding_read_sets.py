"""Claim rows from recorded runs: the passages the check reads at answer time, and the reader's answers.

The claim trees first learned from each question's own paragraphs (HotpotQA's 10, MuSiQue's 20). At
answer time they read a run's read set instead: pages from a whole index, several about the
question's subject, and a reader's answer that may be wrong. A recorded `assistant eval` run of
training questions keeps the passages each answer read (the `read` field), which gives rows of that
kind:
- a normal run: the gold answer (alone and said as a sentence) against the read set, supported on a
  gold supporting passage that holds it; the reader's answer when clearly right (F1 >= 0.8) the
  same way, and when clearly wrong (F1 < 0.3) supported nowhere;
- a --drop-support run (the question's own support hidden from its searches): the reader's answer,
  supported nowhere, since whatever it rests on is not the question's support. The gold answer is left
  out there: a page that is not the question's may still state it truly.
Only records of training questions count (matched by id against relevance_data.training_questions):
a run of any other question is skipped, so report and reserved questions never enter.
"""
from __future__ import annotations

import json
from pathlib import Path

from models.errors import AssistantError

from assistant.grounding.citations import text_for_matching
from ..evaluation.support import support_hider
from assistant.events.core import Passage
from assistant.grounding.features import Text, claim_rows
from .relevance_data import Question

RIGHT_F1, WRONG_F1 = 0.8, 0.3  # the reader's answer as a claim only when clearly right or clearly wrong


def is_drop_support(results: Path) -> bool:
    """Whether a results file is a --drop-support run (its config.json says; else its name)."""
    config = results.with_name(results.name.removesuffix(".jsonl") + ".config.json")
    try:
        return bool(json.loads(config.read_text(encoding="utf-8")).get("drop_support"))
    except (OSError, ValueError, AttributeError):
        return "drop-support" in results.name


def record_claims(record: dict, answer: str, question: str, dropped: bool) -> list[tuple[str, str, bool]]:
    """(claim, the answer it states, whether that is right) for one recorded answer; a passage
    supports the claim when it holds the answer it states (the sentence's words are not one phrase)."""
    claims = []
    if not dropped and answer and text_for_matching(answer) not in ("", "unknown"):
        claims += [(answer, answer, True), (f"{question.strip().rstrip('?')} {answer}.", answer, True)]
    prediction = str(record.get("prediction") or "")
    if prediction.strip() and text_for_matching(prediction) != text_for_matching(answer):
        f1 = float((record.get("scores") or {}).get("f1", 0.0))
        if f1 >= RIGHT_F1 and not dropped:
            claims.append((prediction, prediction, True))
        elif f1 < WRONG_F1:
            claims.append((prediction, prediction, False))
    return claims


def read_set_rows(results: Path, questions: dict[str, Question]) -> tuple[list[list[float]], list[int], list[str]]:
    """(claim rows, labels, Question.id per row) of one results file; `questions`: training
    questions by their example id."""
    try:
        lines = results.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AssistantError(f"cannot read the results file {results} ({type(exc).__name__}); pass the "
                             "results .jsonl of an `assistant eval` run") from None
    dropped = is_drop_support(results)
    x, y, ids = [], [], []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        question = questions.get(str(record.get("id")))
        if question is None or not record.get("read"):
            continue
        example = question.example
        answer = example.answers[0] if example.answers else ""
        passages = [Passage(id=str(p.get("id", "")), text=str(p.get("text", "")), title=str(p.get("title", "")))
                    for p in record["read"]]
        texts = [Text.of(p.text, p.title) for p in passages]
        from_support = support_hider(example)
        gold = [from_support(p) for p in passages]
        yes_no = text_for_matching(answer) in ("yes", "no")
        q = Text.of(example.question)
        for claim, stated, right in record_claims(record, answer, example.question, dropped):
            c = Text.of(claim)
            if not c.tokens:
                continue
            for i, row in enumerate(claim_rows(q, c, texts)):
                x.append(row)
                y.append(int(right and gold[i] and (yes_no or texts[i].holds_phrase(Text.of(stated)))))
                ids.append(question.id)
    return x, y, ids
