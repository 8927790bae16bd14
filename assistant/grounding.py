"""The grounding check: which passages support each sentence of an answer, by the trained trees.

Each sentence (a claim) is scored against every passage the reader read for it
(`grounding_features.claim_rows`, trees in models/grounding_model/); the passages above the claim
threshold support it. A multi-hop answer also cites the passages that complete that support (the
bridge: `hop_row`, above the hop threshold). A sentence nothing supports cites nothing, and an
answer with such a sentence is not presented as supported: it is labelled "not in your documents"
with the closest passages shown. An answer from the reader's memory is labelled as such.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from .citations import NO_ANSWER, Attribution, normalise, sentences
from .events import Passage
from .grounding_features import CLAIM_FEATURES, HOP_FEATURES, Text, claim_rows, hop_row

SUPPORTED, UNSUPPORTED, MEMORY = "supported", "not in your documents", "from memory"
MAX_CLAIM, MAX_HOP, CLOSEST = 3, 2, 3
NOT_IN_DOCUMENTS = "Not in your documents: the indexed documents do not answer this."
FROM_MEMORY = "From the reader's memory, not from your documents:"


@lru_cache(maxsize=1)
def shipped_trees():
    from models.judges.grounding import GroundingTrees

    trees = GroundingTrees()
    trees.check_features("claim", CLAIM_FEATURES)
    trees.check_features("hop", HOP_FEATURES)
    return trees


@dataclass
class SentenceSupport:
    sentence: str
    passages: list[int] = field(default_factory=list)  # indices into the passages read, best first
    score: float = 0.0  # the best claim score


def support_of(question: str, claim: str, texts: Sequence[Text], trees) -> SentenceSupport:
    """The passages that support one claim (claim trees), then those completing it (hop trees)."""
    q, c = Text.of(question), Text.of(claim)
    if not texts or not c.tokens or NO_ANSWER.match(normalise(claim)):
        return SentenceSupport(claim)
    scores = trees.score("claim", claim_rows(q, c, texts))
    order = sorted(range(len(texts)), key=lambda i: -scores[i])
    chosen = [i for i in order if scores[i] >= trees.thresholds["claim"]][:MAX_CLAIM]
    if chosen:
        rest = [i for i in range(len(texts)) if i not in chosen]
        support = [texts[i] for i in chosen]
        hops = trees.score("hop", [hop_row(q, c, texts[i], support) for i in rest])
        ranked = sorted(zip(rest, hops), key=lambda pair: -pair[1])
        chosen += [i for i, s in ranked if s >= trees.thresholds["hop"]][:MAX_HOP]
    return SentenceSupport(claim, chosen, max(scores))


def ground(answer: str, question: str, given: Sequence[Passage], honest: bool = True,
           from_memory: bool = False, trees=None) -> Attribution:
    """Cite, sentence by sentence, the passages the check finds supporting; an answer with a
    sentence nothing supports is labelled "not in your documents" (when `honest`) with no citation."""
    given = list(given)
    if from_memory:
        return Attribution(marked_text=f"{FROM_MEMORY} {answer}", grounding=MEMORY)
    trees = trees or shipped_trees()
    texts = [Text.of(p.text, p.title) for p in given]
    parts = sentences(answer) or [answer]
    supports = [support_of(question, s, texts, trees) for s in parts]
    if not all(s.passages for s in supports):
        closest = given[:CLOSEST]  # the passages read come ranked, best first
        guess = "" if NO_ANSWER.match(normalise(answer)) else f" The reader's unsupported guess: {answer}"
        marked = f"{NOT_IN_DOCUMENTS}{guess}" if honest else answer
        return Attribution(marked_text=marked, grounding=UNSUPPORTED, closest=closest)
    cited: list[Passage] = []
    numbers: dict[str, int] = {}
    marked = []
    for support in supports:
        for i in support.passages:
            if given[i].id not in numbers:
                cited.append(given[i])
                numbers[given[i].id] = len(cited)
        markers = "".join(dict.fromkeys(f"[{numbers[given[i].id]}]" for i in support.passages))
        marked.append(f"{support.sentence} {markers}")
    return Attribution(cited=cited, marked_text=" ".join(marked), grounding=SUPPORTED)

