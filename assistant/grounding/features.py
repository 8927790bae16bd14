"""What the grounding check sees of (question, claim, passage): numbers and number words made equal,
then plain measurable features.

Two feature rows, one per question the check asks:
- claim: does this passage alone support this claim (an answer sentence) as an answer to the
  question? The claim's new words in the passage, in one run, near the question's words;
- hop: given the passages that support the claim, is this other passage part of the support (the
  bridge of a multi-hop answer)? It names, or is named by, a supporting passage (or shares a name
  of two words with one); it holds the question's words and names the supporting passages lack; and
  it stands out among the other candidates read with it.
The same functions make the training rows (research/judge_training/grounding_train.py) and the
rows scored at answer time, so the two cannot drift apart.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from .citations import STOPWORDS, text_for_matching, stem
from .settings import MATCHING

NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
                     "eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000",
                     "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5"})
ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
THOUSANDS = re.compile(r"\b(\d{1,3})(?:,(\d{3}))+\b")
YES_NO = frozenset({"yes", "no"})

CLAIM_FEATURES = ("contains", "key_share", "key_count", "missing", "run_share", "question_share",
                  "title_question", "near_question", "number_share", "has_numbers", "key_in_title", "yes_no",
                  "question_gap", "near_gap", "title_gap", "named_by")
ENCODER_FEATURES = CLAIM_FEATURES + ("encoder", "encoder_gap")  # claim rows with encoder_columns
HOP_FEATURES = ("question_share", "title_question", "links_support", "adds_question", "claim_key_share",
                "support_count", "yes_no", "shares_name", "adds_names", "question_gap", "adds_gap", "title_gap")
# the columns whose gap to the best passage read beside it a row adds, in the order of the gaps
# (claim: question_gap, near_gap, title_gap; hop: question_gap, adds_gap, title_gap)
CLAIM_GAPS = tuple(CLAIM_FEATURES.index(name) for name in ("question_share", "near_question", "title_question"))
HOP_GAPS = tuple(HOP_FEATURES.index(name) for name in ("question_share", "adds_question", "title_question"))
QUESTION_SHARE = CLAIM_FEATURES.index("question_share")


def numbers_normalised(text: str) -> str:
    """'1,000' -> '1000', '15th' -> '15', 'twelve' -> '12': the same number written two ways matches."""
    text = THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    text = ORDINAL.sub(r"\1", text)
    return text


_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


def readable_numbers(text: str) -> str:
    """numbers_normalised, and number words as digits, the text otherwise kept as written (what the
    grounding encoder reads: 'holds twelve people' and 'holds 12 people' look the same to it)."""
    return _NUMBER_WORD.sub(lambda m: NUMBER_WORDS[m.group(0).lower()], numbers_normalised(text))


def encoder_pair(question: str, claim: str, title: str, text: str) -> tuple[str, str]:
    """(claim with its question, passage) as the grounding encoder reads them, in training and at answer time."""
    first = f"{readable_numbers(claim.strip())} | {readable_numbers(question.strip())}"
    title, text = readable_numbers(title.strip()), readable_numbers(" ".join(text.split()))
    return first, (f"{title}: {text}" if title else text)


def encoder_columns(probabilities: Sequence[float]) -> list[list[float]]:
    """Per passage read for one claim: the encoder's P(supports), and how far it is behind the best
    passage's (the passage the claim rests on stands out)."""
    best = max(probabilities, default=0.0)
    return [[float(p), float(p) - best] for p in probabilities]


def stemmed_words(text: str) -> list[str]:
    """Normalised, stemmed words with number words as digits."""
    return [NUMBER_WORDS.get(w, stem(w)) for w in text_for_matching(numbers_normalised(text)).split()]


def content_tokens(tokens: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(w for w in tokens if w not in STOPWORDS))


# a capital of any script ("Öresund", "Łódź" are names too; [A-Z] left them out)
_CAPITAL = "[" + re.escape("".join(chr(i) for i in range(0x10000) if chr(i).isupper())) + "]"
_NAME = re.compile(rf"(?<![\w'’])(?:{_CAPITAL}[\w'’.-]*|\d[\d,.]*)")


def name_words(text: str) -> list[str]:
    """The words of a text's names and numbers as written (capitalised words, figures), normalised
    like `stemmed_words`: "Who leads Project Otter?" -> ["project", "otter"] (a question word is a stopword).
    A stopword opening the text is capitalised for the sentence, not a name: "Does" stems to "doe",
    which is no stopword, and "Does Project Otter survey kelp forests?" - "Yes" lacked a name."""
    found = _NAME.findall(text)
    if found and found[0].lower() in STOPWORDS and text.lstrip(" \"'“‘(").startswith(found[0]):
        found = found[1:]
    return content_tokens([w for token in found for w in stemmed_words(token)])


DISAMBIGUATION = re.compile(r"\s*\([^)]*\)\s*$")  # "Nat Wolff (actor)": Wikipedia's page-title suffix
# "Stanley Park, Blackpool": Wikipedia's place qualifier, a comma and up to three capitalised words
PLACE = re.compile(rf",\s+{_CAPITAL}[\w'’.-]*(?:\s+{_CAPITAL}[\w'’.-]*){{0,2}}\s*$")
_PHRASE = re.compile(rf"(?<![\w'’]){_CAPITAL}[\w'’.-]*(?:\s+{_CAPITAL}[\w'’.-]*)+")


def written_name(title: str) -> str:
    """A page's title as other pages write it, normalised: every word, without Wikipedia's "(film)"
    or ", Blackpool" after it. The Salisbury Woodland Gardens page writes "Stanley Park", not "Stanley
    Park, Blackpool", so the two were not linked and a right answer rested on nothing
    (lab/notes/history.md, "Trust: titles written without their place"). A title that only
    qualifies with a year or a lower-case word ("United States presidential election, 2016") stays
    whole."""
    if DISAMBIGUATION.search(title):
        return " ".join(stemmed_words(DISAMBIGUATION.sub("", title)))
    return " ".join(stemmed_words(PLACE.sub("", title)))


def name_phrases(text: str) -> frozenset[str]:
    """A text's runs of two or more capitalised words, normalised ("Paul Brun", "Project Otter")."""
    out = (" ".join(content_tokens(stemmed_words(run))) for run in _PHRASE.findall(text))
    return frozenset(p for p in out if " " in p)


def word_held_in(word: str, bag: set[str]) -> bool:
    """A word in a bag, or a long word sharing its first letters (MATCHING.shared_prefix: five)
    with one ("Portugal" and "Portuguese", a misspelt name): a check of words must not fail on their
    endings. A number must be there as it is."""
    if word in bag:
        return True
    n = MATCHING.shared_prefix
    return len(word) >= n and word.isalpha() and any(w[:n] == word[:n] for w in bag if len(w) >= n)


@dataclass
class Text:
    """A passage (or claim, or question) read once: its words, their set and its title's words."""

    tokens: list[str]
    title: list[str] = field(default_factory=list)
    phrases: frozenset[str] = frozenset()  # its names of two words or more ("paul brun")
    name: str = ""  # its title as other passages write it (`written_name`)
    bag: set[str] = field(init=False, repr=False)

    def __post_init__(self):
        self.bag = set(self.tokens)

    @classmethod
    def of(cls, text: str, title: str = "") -> "Text":
        return cls(stemmed_words(f"{title} {text}"), content_tokens(stemmed_words(title)), name_phrases(f"{title}. {text}"),
                   written_name(title))

    def joined(self) -> str:
        return f" {' '.join(self.tokens)} "

    def holds_phrase(self, other: "Text") -> bool:
        """Whether the other text's words stand here as one phrase, in its order (a claim on a page)."""
        return bool(other.tokens) and other.joined() in self.joined()


def _share(part: Sequence[str], whole: set[str]) -> float:
    return sum(w in whole for w in part) / len(part) if part else 0.0


def _longest_run(keys: list[str], tokens: list[str]) -> int:
    """The most claim words found next to each other (in the claim's order) in the passage."""
    best, wanted = 0, list(keys)
    for start in range(len(tokens)):
        n = 0
        while n < len(wanted) and start + n < len(tokens) and tokens[start + n] == wanted[n]:
            n += 1
        best = max(best, n)
        if best == len(wanted):
            break
    return best


def _near_question(keys: set[str], asked: set[str], tokens: list[str]) -> float:
    """The share of the question's words within MATCHING.near_window words of the claim's words (best spot)."""
    if not keys or not asked:
        return 0.0
    best, window = 0, MATCHING.near_window
    for i, w in enumerate(tokens):
        if w in keys:
            around = set(tokens[max(0, i - window):i + window + 1])
            best = max(best, len(asked & around))
    return best / len(asked)


def claim_row(question: Text, claim: Text, passage: Text) -> list[float]:
    asked = content_tokens(question.tokens)
    keys = [w for w in content_tokens(claim.tokens) if w not in set(asked)]
    yes_no = float(bool(claim.tokens) and claim.tokens[0] in YES_NO and len(claim.tokens) <= 2)
    numbers = [w for w in keys if w.isdigit()]
    return [
        float(passage.holds_phrase(claim)),
        _share(keys, passage.bag),
        float(len(keys)),
        float(sum(w not in passage.bag for w in keys)),
        _longest_run(keys, passage.tokens) / len(keys) if keys else 0.0,
        _share(asked, passage.bag),
        _share(passage.title, set(question.tokens)),
        _near_question(set(keys), set(asked), passage.tokens),
        _share(numbers, passage.bag) if numbers else 1.0,
        float(bool(numbers)),
        _share(keys, set(passage.title)),
        yes_no,
    ]


def claim_rows(question: Text, claim: Text, passages: Sequence[Text]) -> list[list[float]]:
    """claim_row for each passage, plus how far each is behind the best of the passages read with
    it in question words, nearness and title (the passage about the question's subject stands out),
    and whether a passage about the question names it."""
    rows = [claim_row(question, claim, p) for p in passages]
    best = [max((r[i] for r in rows), default=0.0) for i in CLAIM_GAPS]
    return [r + [r[column] - top for column, top in zip(CLAIM_GAPS, best)] + [_named_by(i, passages, rows)]
            for i, r in enumerate(rows)]


def _named_by(i: int, passages: Sequence[Text], rows: list[list[float]]) -> float:
    """The question-word share of the best other passage that names this one's title: the bridge
    of a multi-hop question names the passage holding the answer."""
    return max((rows[j][QUESTION_SHARE] for j, other in enumerate(passages)
                if j != i and _title_words_in(other, passages[i])), default=0.0)


def _title_words_in(passage: Text, other: Text) -> bool:
    """Whether `other`'s title, less its stopwords, appears in `passage`'s words: the link the claim
    trees were trained with (a title with a stopword, "Kingdom of the Isles", never matches; the claim
    trees refitted with `writes_title` instead cited the answer's own page over the page stating the answer)."""
    title = " ".join(other.title)
    return bool(title) and f" {title} " in passage.joined()


def writes_title(passage: Text, other: Text) -> bool:
    """Whether `other`'s title appears in `passage`'s words (a link between the two): "The Fault in
    Our Stars (film)" is written "The Fault in Our Stars" (before, the title's stopwords were left
    out and never matched)."""
    return bool(other.name) and f" {other.name} " in passage.joined()


def linked(passage: Text, other: Text, asked: Sequence[str] = ()) -> bool:
    """Whether either of two passages names the other's title, or both name the same person or
    thing (a name of two words or more, not only the question's `asked` words): the bridge entity
    of a multi-hop answer."""
    if writes_title(passage, other) or writes_title(other, passage):
        return True
    return _shares_name(passage, other, asked)


def links_any(texts: Sequence[Text], i: int, others: Sequence[int], asked: Sequence[str]) -> bool:
    """Whether passage i is linked to any of `others` (`linked`)."""
    return any(linked(texts[i], texts[j], asked) for j in others)


def _shares_name(passage: Text, other: Text, asked: Sequence[str]) -> bool:
    """Both name the same person or thing of two words or more, not only the question's `asked` words."""
    return any(not set(p.split()) <= set(asked) for p in passage.phrases & other.phrases)


def hop_row(question: Text, claim: Text, passage: Text, support: Sequence[Text],
            asked: Sequence[str] = ()) -> list[float]:
    """One candidate bridge alone; `asked`: the question's names and numbers (`name_words`)."""
    query = content_tokens(question.tokens)
    keys = [w for w in content_tokens(claim.tokens) if w not in set(query)]
    covered = set().union(*(s.bag for s in support)) if support else set()
    missing = [w for w in query if w not in covered]
    links = any(writes_title(passage, s) or writes_title(s, passage) for s in support)
    shares = any(_shares_name(passage, s, asked) for s in support)
    yes_no = float(bool(claim.tokens) and claim.tokens[0] in YES_NO and len(claim.tokens) <= 2)
    lacking = [w for w in asked if not word_held_in(w, covered)]
    return [
        _share(query, passage.bag),
        _share(passage.title, set(question.tokens)),
        float(links),
        _share(missing, passage.bag) if missing else 0.0,
        _share(keys, passage.bag),
        float(len(support)),
        yes_no,
        float(shares),
        sum(word_held_in(w, passage.bag) for w in lacking) / len(lacking) if lacking else 0.0,
    ]


def hop_rows(question: Text, claim: Text, candidates: Sequence[Text], support: Sequence[Text],
             asked: Sequence[str] = ()) -> list[list[float]]:
    """hop_row for each candidate, plus how far each is behind the best candidate in question words,
    in the question words the support lacks, and in title (the bridge stands out among the pages
    read beside the claim's)."""
    rows = [hop_row(question, claim, c, support, asked) for c in candidates]
    best = [max((r[i] for r in rows), default=0.0) for i in HOP_GAPS]
    return [r + [r[column] - top for column, top in zip(HOP_GAPS, best)] for r in rows]
