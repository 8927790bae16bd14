"""Checks for the re-read on a person's files: (question, answer, passage) -> does the passage give
this answer to this question?, from the reader-written questions of lab/documents_claims.py.

One group per question: the passage it was written from with its answer first, then the mistakes
a reader makes on a person's files (issue 51's wrong-but-supported answers):
- near miss: another fact of the same passage as the answer (the right file, the wrong line: "v1.2"
  for unzip's version from the manual's "zipinfo v1.2");
- other file: the answer in a passage of another manual that writes it too, or planted there in
  place of one of its facts (the answer's words, another program's page);
- left out: the passage without the sentence that states the answer (the file is about the
  question but does not say it: an unanswerable question answered from a file that holds its words).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass


POSITIVE, NEAR_MISS, OTHER_FILE, LEFT_OUT = "support", "near-miss", "other-file", "left-out"
# two facts this close are one fact written twice ("-a, --append", "-r or --raw-output")
_ALIAS_GAP = 12


@dataclass(frozen=True)
class Pair:
    kind: str  # POSITIVE or a kind of mistake
    label: int  # 1: the passage gives this answer to this question
    question: str
    claim: str
    title: str
    passage: str


@dataclass(frozen=True)
class Claim:
    id: str
    title: str
    passage: str
    question: str
    answer: str
    others: tuple[str, ...]  # the passage's other facts


def claims(records: list[dict]) -> list[Claim]:
    out = []
    for number, r in enumerate(records):
        if r.get("question") and r.get("answer") and r["answer"] in r["passage"]:
            out.append(Claim(f"{r['title']}#{number}", r["title"], r["passage"], r["question"], r["answer"],
                             tuple(r.get("others", ()))))
    return out


def _kind(fact: str) -> str:
    return "option" if fact.startswith("-") else "number" if fact.replace(".", "").isdigit() else "token"


def near_misses(claim: Claim) -> list[str]:
    """The passage's other facts that are not the answer written another way (an alias beside it)."""
    at = claim.passage.find(claim.answer)
    out = []
    for other in claim.others:
        where = claim.passage.find(other)
        if where < 0 or other.lower() in claim.question.lower():
            continue
        gap = where - (at + len(claim.answer)) if where > at else at - (where + len(other))
        if gap > _ALIAS_GAP:
            out.append(other)
    same = [o for o in out if _kind(o) == _kind(claim.answer)]
    return same or out


def _writes(text: str, fact: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(fact)}(?![\w]|\.\w)", text) is not None


def other_file(claim: Claim, pool: list[Claim], rng: random.Random) -> tuple[str, str] | None:
    """(title, passage) of another manual that writes the answer, else one with the answer planted
    in place of a fact of the same kind."""
    writing = [c for c in pool if c.title != claim.title and _writes(c.passage, claim.answer)]
    if writing:
        chosen = rng.choice(writing)
        return chosen.title, chosen.passage
    same_kind = [c for c in pool if c.title != claim.title and any(_kind(o) == _kind(claim.answer) for o in c.others)]
    if not same_kind:
        return None
    chosen = rng.choice(same_kind)
    replaced = rng.choice([o for o in chosen.others if _kind(o) == _kind(claim.answer)])
    return chosen.title, chosen.passage.replace(replaced, claim.answer, 1)


def left_out(claim: Claim) -> str | None:
    """The passage without its sentences that write the answer; None when little is left."""
    parts = re.split(r"(?<=[.!?])\s+", claim.passage)
    kept = [p for p in parts if claim.answer not in p]
    text = " ".join(kept)
    return text if len(text.split()) >= 25 and claim.answer not in text else None


def group(claim: Claim, pool: list[Claim], rng: random.Random) -> list[Pair]:
    def pair(claimed: str, title: str, text: str, label: int, kind: str) -> Pair:
        return Pair(kind, label, claim.question, claimed, title, text)

    pairs = [pair(claim.answer, claim.title, claim.passage, 1, POSITIVE)]
    misses = near_misses(claim)
    if misses:
        pairs.append(pair(rng.choice(misses), claim.title, claim.passage, 0, NEAR_MISS))
    other = other_file(claim, pool, rng)
    if other:
        pairs.append(pair(claim.answer, other[0], other[1], 0, OTHER_FILE))
    rest = left_out(claim)
    if rest:
        pairs.append(pair(claim.answer, claim.title, rest, 0, LEFT_OUT))
    return pairs if len(pairs) > 1 else []


def build_groups(chosen: list[Claim], pool: list[Claim], seed: int) -> list[list[Pair]]:
    rng = random.Random(seed)
    return [g for g in (group(c, pool, rng) for c in chosen) if g]
