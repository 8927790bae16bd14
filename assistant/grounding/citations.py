"""Which of the passages the reader was given does the answer rest on: attribution after the fact.

Small readers cite badly when asked to, and asking them would change the answer prompts (and with
them the answers), so the answer is attributed afterwards, deterministically: each sentence of the
answer is matched against the passages the reader was given for it (after prompt fitting). A
passage that contains the normalised sentence supports it outright; otherwise the sentence's key
tokens (its content words not already in the question) are covered greedily by the passages that
hold the most of them. A sentence nothing supports gets no citation rather than a wrong one.
"""
from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass, field
from typing import Sequence

from ..context import Result
from ..events.core import Passage
from .settings import MATCHING

# words that carry no evidence: a passage holding "the" or "is" supports nothing
STOPWORDS = frozenset("""
a an the and or but nor of to in on at by for with from as into onto about over under than then
is are was were be been being am do does did has have had having it its this that these those there
here who whom whose which what when where why how i you he she we they me him her us them my your his
our their not no yes so if also very just only s t can could will would shall should may might must
""".split())
NO_ANSWER = re.compile(r"^(unknown|i (do not|don't) know|no answer|not (stated|mentioned|given)|none)\b")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


# letters Unicode does not split into a base letter and an accent: "Øresund" is "Oresund" too
UNDECOMPOSED = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d", "ł": "l", "þ": "th",
                              "ı": "i"})


def text_for_matching(text: str) -> str:
    """Lower case, accents and punctuation gone, possessives and articles dropped, one space."""
    text = unicodedata.normalize("NFKD", text.lower()).translate(UNDECOMPOSED)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"['’]s\b", "", text)
    text = "".join(" " if c in string.punctuation or c in "‘’“”–—…" else c for c in text)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def stem(word: str) -> str:
    """A plural or third-person "s" off, so "leads" in the question covers "lead" in the answer."""
    long_enough = len(word) > MATCHING.stem_above_letters
    return word[:-1] if long_enough and word.endswith("s") and not word.endswith("ss") else word


def key_tokens(sentence: str, question: str = "") -> list[str]:
    """The sentence's content words that the question does not already hold (stemmed). An answer
    that only repeats the question has none, and is cited nowhere rather than anywhere."""
    asked = {stem(w) for w in text_for_matching(question).split()}
    words = dict.fromkeys(stem(w) for w in text_for_matching(sentence).split() if w not in STOPWORDS)
    return [w for w in words if w not in asked]


@dataclass
class Attribution:
    """The cited passages (numbered from 1 in this order) and the answer with [n] markers; with the
    grounding check (assistant/grounding/verdict.py) also its verdict and, when unsupported, the closest passages."""

    cited: list[Passage] = field(default_factory=list)
    marked_text: str = ""
    grounding: str = ""  # "" (not checked) | supported | pieced together | written, not confirmed | not in your
    # documents | from memory
    closest: list[Passage] = field(default_factory=list)


@dataclass
class LabelledResult(Result):
    """An answer whose citations and label were decided as it was written (a folder answer, an
    answer read again in a person's files); the runner uses its attribution as it is."""

    attribution: Attribution | None = None


def supporting_passages(sentence: str, question: str, texts: Sequence[str], token_sets: Sequence[set[str]],
                min_keys: int = 1) -> list[int]:
    """Indices of the passages that support one sentence, best first; [] when none does."""
    whole = text_for_matching(sentence)
    keys = key_tokens(sentence, question)
    if len(keys) < min_keys or NO_ANSWER.match(whole):  # "yes", "unknown": no passage holds that as evidence
        return []
    containing = [i for i, text in enumerate(texts) if f" {whole} " in f" {text} "]
    if containing:
        return containing[:1]  # the same words twice (a passage indexed twice) need one source
    needed = max(1, -(-len(keys) // MATCHING.key_parts))  # each chosen passage adds a share of the key tokens
    uncovered, chosen = set(keys), []
    while uncovered:
        gains = [len(uncovered & tokens) for tokens in token_sets]
        best = max(range(len(gains)), key=lambda i: (gains[i], -i), default=None)
        if best is None or gains[best] < needed:
            break
        chosen.append(best)
        uncovered -= token_sets[best]
    covered = len(keys) - len(uncovered)
    return chosen if chosen and covered / len(keys) >= MATCHING.min_share else []


def sentences(text: str) -> list[str]:
    """The answer's sentences; a fragment of fewer than two words ("1.", "Yes.") joins the next."""
    out, pending = [], ""
    for piece in SENTENCE_END.split(" ".join(text.split())):
        piece = f"{pending} {piece}".strip()
        if len(re.findall(r"[^\W\d_]+", piece)) < 2:
            pending = piece
        else:
            out.append(piece)
            pending = ""
    if pending:
        if out:
            out[-1] = f"{out[-1]} {pending}"
        else:
            out.append(pending)
    return out


def attribute(answer: str, question: str, given: Sequence[Passage]) -> Attribution:
    """Cite, among `given` (the passages the reader read for this answer), those the answer rests
    on, with each sentence followed by the markers of its sources."""
    given = list(given)
    texts = [text_for_matching(f"{p.title} {p.text}") for p in given]
    token_sets = [{stem(w) for w in t.split()} for t in texts]
    parts = sentences(answer)
    # in a longer answer a sentence with one new word ("She is the lead.") leans on the one before
    min_keys = 1 if len(parts) == 1 else 2
    found = [supporting_passages(sentence, question, texts, token_sets, min_keys) for sentence in parts]
    return cite_sentences(parts, found, given)


def cite_sentences(parts: Sequence[str], found: Sequence[Sequence[int]], given: Sequence[Passage],
                   grounding: str = "") -> Attribution:
    """Each sentence followed by the markers of the passages found for it (indices into `given`),
    numbered from 1 in the order first cited."""
    cited: list[Passage] = []
    numbers: dict[str, int] = {}
    marked = []
    for sentence, passages in zip(parts, found):
        for i in passages:
            if given[i].id not in numbers:
                cited.append(given[i])
                numbers[given[i].id] = len(cited)
        markers = "".join(dict.fromkeys(f"[{numbers[given[i].id]}]" for i in passages))
        marked.append(f"{sentence} {markers}" if markers else sentence)
    return Attribution(cited=cited, marked_text=" ".join(marked), grounding=grounding)
