"""The grounding check: which passages support each sentence of an answer, by the trained trees.

Each sentence (a claim) is scored against every passage the reader read for it
(`grounding_features.claim_rows`, trees in models/grounding_model/); with the encoder (the `encoder`
option), a small cross-encoder also reads claim and passage together and the claim_encoder trees
weigh its score with the word features. The passages above the claim threshold support it; failing
those, the page stating the answer as written when a bridge linked to it completes it
(`_stating_page`). A multi-hop answer also cites the passages that complete that support (the
bridges: `hop_row`, the first above the hop threshold, a second only where it extends the chain).
A sentence nothing supports cites nothing, and an answer with such a sentence is not presented as
supported: it is labelled "not in your documents" with the closest passages shown. So is an answer
whose cited passages, together, leave most of the question out (`coverage`): each sentence can be
backed by a passage about something else that shares its words (the question's words weigh their
rarity). What the cited passages must hold together, and which pages a sentence rests on, are the
rules in rules.py. An answer from the reader's memory is checked the same against the
search made for it (the `memory_check` option): backed, it cites; else it is labelled as from memory.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Sequence

from models.judges.word_rarity import shipped_rarity

from .citations import NO_ANSWER, Attribution, text_for_matching, sentences
from ..events.core import Passage
from .features import (CLAIM_FEATURES, ENCODER_FEATURES, HOP_FEATURES, Text, claim_rows, content_tokens,
                                 encoder_columns, encoder_pair, hop_rows, linked, links_any, name_words, writes_title)
from .rules import (SentenceSupport, compares_its_pages, names_coverage, passages_needed, offers_choice,
                              question_coverage, restates_question, rests_on)
from .settings import CITING

SUPPORTED, UNSUPPORTED, MEMORY = "supported", "not in your documents", "from memory"
# how many passages a claim and its bridges cite, how sure a second bridge and a page stating the
# answer must be: settings.CitingSettings (each value with its reason)
CONTAINS = CLAIM_FEATURES.index("contains")
NOT_IN_DOCUMENTS = "Not in your documents: the indexed documents do not answer this."
FROM_MEMORY = "From the reader's memory, not from your documents:"
MEMORY_AGREES = "From the reader's memory; your documents agree:"


@lru_cache(maxsize=1)
def shipped_trees():
    from models.judges.grounding import GroundingTrees

    trees = GroundingTrees()
    trees.check_features("claim", CLAIM_FEATURES)
    trees.check_features("hop", HOP_FEATURES)
    if "claim_encoder" in trees.trees:
        trees.check_features("claim_encoder", ENCODER_FEATURES)
    return trees


@lru_cache(maxsize=1)
def shipped_encoder():
    from models.judges.grounding import load_encoder

    return load_encoder(n_threads=CITING.encoder_threads)


def encoder_scores(encoder, question: str, claim: str, given: Sequence[Passage]) -> list[float]:
    """The encoder's P(this passage supports the claim) for each passage read."""
    pairs = [encoder_pair(question, claim, p.title, p.text) for p in given]
    return encoder.score(pairs[0][0], [second for _, second in pairs]) if pairs else []


def support_of(question: str, claim: str, texts: Sequence[Text], trees,
               encode: Callable[[str], Sequence[float]] | None = None, options: bool = True) -> SentenceSupport:
    """The passages that support one claim (claim trees; with `encode`, which gives the encoder's
    score of each passage for a claim, the claim_encoder trees), then those completing it (hop trees).
    When no passage holds the claim by the trees, the page that states it as written still does if
    a bridge completes it (`_stating_page`): the trees miss a short answer ("2014") whose page holds
    few of the question's words, which sit on the bridge (the composer's page naming the film).
    Failing both, a pick between options the question names rests on the options' pages
    (`_option_pages`; `options` False: not, the `compare` option's ablation)."""
    q, c = Text.of(question), Text.of(claim)
    if not texts or not c.tokens or NO_ANSWER.match(text_for_matching(claim)):
        return SentenceSupport(claim)
    rows, kind = claim_rows(q, c, texts), "claim"
    if encode is not None:
        rows, kind = [r + e for r, e in zip(rows, encoder_columns(encode(claim)))], "claim_encoder"
    scores = trees.score(kind, rows)
    order = sorted(range(len(texts)), key=lambda i: -scores[i])
    chosen = [i for i in order if scores[i] >= trees.thresholds[kind]][:CITING.max_claim]
    asked = name_words(question)
    stating = [] if chosen else _stating_page(order, scores, rows, texts, asked)
    if not chosen and not stating:
        picked = _option_pages(q, c, texts, order) if options else []
        return SentenceSupport(claim, picked, max(scores), 1 if picked else 0)
    bridges = _bridges(q, c, texts, chosen or stating, trees, asked)
    if stating and not _completes(question, texts, stating[0], bridges, asked):
        return SentenceSupport(claim, [], max(scores), 0)
    chosen = chosen or stating
    return SentenceSupport(claim, chosen + bridges, max(scores), len(chosen))


def _bridges(q: Text, c: Text, texts: Sequence[Text], chosen: list[int], trees, asked) -> list[int]:
    """The passages completing the claim's support: the best candidate above the hop threshold, then
    a second one that joins that bridge to the claim's pages where it is not linked to them (the
    director's other film naming the city, between the question's film and the city), or else the
    best one scored given the first too (question -> bridge -> bridge -> claim) above CITING.second_bridge. A
    second bridge scored beside the first was most often a sibling of it, another page naming the
    answer's ("End of Watch" beside "Harsh Times" for David Ayer)."""
    rest = [i for i in range(len(texts)) if i not in chosen]
    if not rest or CITING.max_hop < 1:
        return []
    scores = trees.score("hop", hop_rows(q, c, [texts[i] for i in rest], [texts[i] for i in chosen], asked))
    ranked = [i for s, i in sorted(zip(scores, rest), key=lambda pair: -pair[0]) if s >= trees.thresholds["hop"]]
    if not ranked or CITING.max_hop < 2:
        return ranked[:1]
    first, others = ranked[0], [i for i in rest if i != ranked[0]]
    if not links_any(texts, first, chosen, asked):  # the missing link between it and the claim's pages
        joining = [i for i in ranked[1:]
                   if links_any(texts, i, chosen, asked) and linked(texts[i], texts[first], asked)]
        if joining:
            return [first, joining[0]]
    support = [texts[i] for i in (*chosen, first)]
    chained = trees.score("hop", hop_rows(q, c, [texts[i] for i in others], support, asked)) if others else []
    best = max(range(len(others)), key=lambda k: chained[k], default=None)
    return [first] + ([others[best]] if best is not None and chained[best] >= CITING.second_bridge else [])


def _stating_page(order: Sequence[int], scores: Sequence[float], rows, texts: Sequence[Text],
                  asked: Sequence[str]) -> list[int]:
    """The best passage, above CITING.stating_floor, that holds the claim as written and is linked to
    another passage read (a page naming its title, or a name they share): a candidate for the page
    stating a short answer, kept only if a bridge completes it (`_completes`)."""
    for i in order:
        if scores[i] < CITING.stating_floor:
            break
        if rows[i][CONTAINS] and links_any(texts, i, [j for j in range(len(texts)) if j != i], asked):
            return [i]
    return []


def _option_pages(q: Text, c: Text, texts: Sequence[Text], order: Sequence[int]) -> list[int]:
    """For a pick between the options a question names ("Which came out first, Dinosaur or
    McFarland, USA?" - "Dinosaur"): the page titled as the answer is written, and the best other
    page the question names by its title. The claim trees score an option's own page low (it holds
    little of the question's frame), so a right pick rested on nothing; resting it on the options'
    pages lets no answer through whose own pages are hidden (lab/notes/history.md, "Trust: titles
    written without their place, a pick rests on its options' pages"). [] when the question offers
    no choice or no page bears the answer's title."""
    if not offers_choice(q) or not q.holds_phrase(c):
        return []
    said, whole = " ".join(c.tokens), content_tokens(c.tokens)  # as the page is written, or its whole title
    own = [i for i in order if (texts[i].name == said or texts[i].title == whole) and writes_title(q, texts[i])]
    other = [i for i in order if i not in own and texts[i].name and writes_title(q, texts[i])
             and f" {texts[i].name} " not in c.joined()]
    return own[:1] + other[:1] if own else []


def _completes(question: str, texts: Sequence[Text], stating: int, bridges: Sequence[int],
               asked: Sequence[str]) -> bool:
    """Whether the bridges complete a page that states the answer but holds little of the question:
    one is linked to it, and together they hold most of the question's words (CITING.stating_coverage)."""
    return (links_any(texts, stating, bridges, asked)
            and question_coverage(question, [texts[i] for i in (stating, *bridges)]) >= CITING.stating_coverage)


@dataclass(frozen=True)
class GroundingRule:
    """How strict the check is before an answer is presented as supported (the default strategy's
    options). coverage: the share of the question's words, each weighed by its rarity
    (models/grounding_model/word_rarity.json), the cited passages must hold together;
    names: the share of the question's names and numbers they must hold, and then every name and
    number the answer states too, and no answer that only restates the question (0 turns either off).
    rarity: False counts each of the question's words once in the coverage (its ablation); repeats:
    True also cites the pages `passages_needed` leaves out (its ablation); compare: False holds the pages a
    comparison names to the coverage and the links like any others (`compares_its_pages`, `rests_on`)."""

    honest: bool = True
    encoder: bool = False
    coverage: float = 0.0
    names: float = 0.0
    rarity: bool = True  # coverage weighs each word by its rarity; False: every word counts once
    repeats: bool = False  # also cite a page that adds no word to the others cited (`passages_needed`)
    compare: bool = True  # the pages a comparison names are its support (`compares_its_pages`)


def not_in_documents(answer: str, given: Sequence[Passage], honest: bool) -> Attribution:
    """The label for an answer nothing read supports: the reader's guess shown as such (when
    `honest`), no citation, the closest passages (those read come ranked, best first)."""
    guess = "" if NO_ANSWER.match(text_for_matching(answer)) else f" The reader's unsupported guess: {answer}"
    marked = f"{NOT_IN_DOCUMENTS}{guess}" if honest else answer
    return Attribution(marked_text=marked, grounding=UNSUPPORTED, closest=list(given[:CITING.closest]))


def ground(answer: str, question: str, given: Sequence[Passage], rule: GroundingRule = GroundingRule(),
           from_memory: bool = False, trees=None) -> Attribution:
    """Cite, sentence by sentence, the passages the check finds supporting; an answer with a
    sentence nothing supports, or whose cited passages hold too little of the question (the
    rule's coverage and names), is labelled "not in your documents" (when `rule.honest`) with no
    citation. An answer `from_memory` is checked the same against the passages given (a search
    with the question): supported, it cites them, said to come from memory; else it is labelled
    "from memory" with no citation. `rule.encoder`: True for the shipped encoder, False for the word
    features alone, or an encoder (anything with `score(first, seconds)`)."""
    given = list(given)
    if from_memory:  # looked up in the documents (the memory_check option): cited where they back it
        checked = ground(answer, question, given, rule, trees=trees) if given else None
        if checked is not None and checked.grounding == SUPPORTED:
            return replace(checked, marked_text=f"{MEMORY_AGREES} {checked.marked_text}")
        return Attribution(marked_text=f"{FROM_MEMORY} {answer}", grounding=MEMORY)
    trees = trees or shipped_trees()
    texts = [Text.of(p.text, p.title) for p in given]
    parts = sentences(answer) or [answer]
    encoder = rule.encoder
    if encoder is True:
        encoder = shipped_encoder() if "claim_encoder" in trees.trees else False
    encode = (lambda claim: encoder_scores(encoder, question, claim, given)) if encoder else None
    supports = [support_of(question, s, texts, trees, encode, rule.compare) for s in parts]
    # with the names rule a page the sentence does not rest on (an unlinked bridge) is not cited
    asked, asking = name_words(question), Text.of(question)
    resting = [rests_on(s, texts, asked, asking if rule.compare else None) if rule.names else s.passages
               for s in supports]
    backed = all(s.passages for s in supports) and not (rule.names and restates_question(answer, question))
    if backed and (rule.coverage or rule.names):
        cited_texts = [texts[i] for i in dict.fromkeys(i for passages in resting for i in passages)]
        rarity = shipped_rarity() if rule.rarity else None
        covered = (question_coverage(question, cited_texts, rarity) >= rule.coverage
                   or (rule.compare and compares_its_pages(asking, cited_texts)))
        backed = covered and (not rule.names or names_coverage(asked, zip(parts, resting), texts) >= rule.names)
    if not backed:
        return not_in_documents(answer, given, rule.honest)
    cited: list[Passage] = []
    numbers: dict[str, int] = {}
    marked = []
    for sentence, passages in zip(parts, resting):
        if not rule.repeats:
            passages = passages_needed(question, sentence, passages, texts)
        for i in passages:
            if given[i].id not in numbers:
                cited.append(given[i])
                numbers[given[i].id] = len(cited)
        markers = "".join(dict.fromkeys(f"[{numbers[given[i].id]}]" for i in passages))
        marked.append(f"{sentence} {markers}")
    return Attribution(cited=cited, marked_text=" ".join(marked), grounding=SUPPORTED)

