"""The grounding check for a person's own files: an answer is supported where a passage the reader
read states it, and that passage is about what was asked.

The trained check (verdict.py) was fitted on encyclopedic pages: its trees, the question words'
rarity counted over Wikipedia paragraphs, title suffixes and bridges between article titles say
little about a README, a manual or a note. Here each sentence of the answer must have its own
words (those the question does not already hold) in a passage read (citations.supporting_passages),
and the passages cited must hold most of the question's words, counting the file's path and title:
a manual named for the program asked about is about it. Every sentence cites only the passages
holding it; one sentence no passage states makes the whole answer "not in your documents".
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Callable, Sequence

from index_builder.extract.text import plain_hyphens

from ..answering.parts import questions_by_label
from ..events.core import Passage
from .documents_check import States, asked_and_claimed
from .written_forms import number_value, number_written
from .citations import (NO_ANSWER, STOPWORDS, Attribution, cite_sentences, key_tokens, sentences, stem,
                        supporting_passages, text_for_matching)
from .settings import DOCUMENTS
from .verdict import MEMORY, MEMORY_AGREES, SUPPORTED, not_in_documents
from .written import written_not_confirmed


MEMORY_AFTER_SEARCH = "Not found in the passages read from your documents. The reader's guess from memory:"
# an address, a version, a number, a path, a command-line option: one token that must stand in a
# passage as written (its pieces found across passages, "bug-tar@gnu.org" from "tar" and
# "gnu.org", state nothing; "-E" is not the "e" of any passage)
_OPTION_TOKEN = r"--?[A-Za-z][\w-]*"  # "-E", "--check"
_ATOM = re.compile(rf"\d{{1,3}}(?:,\d{{3}})+(?!\d)|[\w.+-]*(?:[@/]|\d)[\w.+@/-]*\w|\d|(?<![\w-]){_OPTION_TOKEN}")
_OPTION = re.compile(_OPTION_TOKEN)  # an option's case is its meaning: "-S" is not "-s"


def atoms(sentence: str) -> list[str]:
    return [a if _OPTION.match(a) else a.lower() for a in _ATOM.findall(sentence)]


def _literally(text: str, atom: str) -> bool:
    """The atom as a whole token; a number not as a piece of a grouped one ("6" of "6,000")."""
    return re.search(rf"(?<![\w.])(?<!\d,){re.escape(atom)}(?![\w]|\.\w|,\d)", text) is not None


def writes(text: str, atom: str) -> bool:
    """The atom stands in the text as a whole token ("6" in "level -6", not in "1996"), an option
    in its case, anything else in any case; a number in any of the forms written_forms.py reads
    ("900000" in "blocks of 900 k")."""
    if _OPTION.match(atom):
        return _literally(text, atom)
    text = text.lower()
    if _literally(text, atom):
        return True
    value = number_value(atom)
    return value is not None and number_written(text, value) is not None


def _as_written_in(text: str, sentence: str, written: Sequence[str]) -> str:
    """The sentence with its numbers in the passage's form ("900000" -> "900 k"), so its words can
    be looked for in the passage."""
    text = text.lower()
    for atom in written:
        value = number_value(atom)
        form = number_written(text, value) if value is not None else None
        if form and not _literally(text, atom):
            sentence = re.sub(re.escape(atom), form, sentence, flags=re.IGNORECASE)
    return sentence


def states_atoms(sentence: str, raw_texts: Sequence[str]) -> bool:
    """Every address, version and number of the sentence is written in one of these passages."""
    return all(any(writes(t, a) for t in raw_texts) for a in atoms(sentence))


_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][\w'-]*")


def names(sentence: str) -> set[str]:
    """The sentence's names: capitalised words past its first ("Project Otter is led by Mira
    Okafor" -> otter, mira, okafor), stemmed as passages are."""
    return {stem(w) for n in _NAME.findall(sentence.strip()) for w in text_for_matching(n).split()} - STOPWORDS


def _stating(sentence: str, question: str, texts, token_sets, raw, min_keys: int) -> list[int]:
    found = _stated_by(sentence, question, texts, token_sets, raw, min_keys)
    # a sentence naming what its passages do not ("Project Otter is led by Mira Okafor" from
    # Heron's page) mixes two things: no passage states it
    held = set().union(*(token_sets[i] for i in found)) if found else set()
    return found if names(sentence) <= held else []


def _stated_by(sentence: str, question: str, texts, token_sets, raw, min_keys: int) -> list[int]:
    """The passages stating the sentence: of those that write all its addresses, versions and
    numbers (when it has some) the one holding most of the question's words, else those holding
    its own words (citations.supporting_passages). A short answer whose words the question already
    holds (".venv" for "What folder name does the venv tutorial suggest?") is looked for as written."""
    sentence = plain_hyphens(sentence)  # as `raw` is: "-i" is the "−i" of a groff PDF
    written = atoms(sentence)
    # nothing of its own but what it writes ("-i", "9.1", ".venv"): the passage that writes it states it
    as_written = not key_tokens(sentence, question) and len(sentence.split()) <= DOCUMENTS.as_written_words
    if as_written and not written:
        written = [sentence.strip().rstrip(".").lower()]
    if written:
        holders = [i for i, text in enumerate(raw) if all(writes(text, a) for a in written)]
        if holders:
            # the sentence's own words first ("For timeout: TERM." from timeout's page), then the question's
            own, asked = content_words(sentence), content_words(question)
            best = max(holders, key=lambda i: (len(own & token_sets[i]), len(asked & token_sets[i]), -i))
            if as_written:
                return [best]
            said = _as_written_in(raw[best], sentence, written)
            return [best] if supporting_passages(said, question, [texts[best]], [token_sets[best]], 1) else []
    found = supporting_passages(sentence, question, texts, token_sets, min_keys)
    return found if states_atoms(sentence, [raw[i] for i in found]) else []


def passage_words(passage: Passage) -> str:
    where = passage.path.replace("/", " ").replace("_", " ").replace("-", " ")
    return text_for_matching(f"{where} {passage.title} {passage.section} {passage.text}")


def content_words(text: str) -> set[str]:
    """The text's words, stemmed as passages are, stop words left out."""
    return {stem(w) for w in text_for_matching(text).split() if w not in STOPWORDS}


def file_name_words(passage: Passage) -> set[str]:
    """The words of the passage's file name, without its folders and extension ("gzip" of
    manuals/gzip.txt, "users", "groups" of users-and-groups.html)."""
    name = PurePosixPath(passage.path.replace("\\", "/")).stem if passage.path else ""
    return {stem(w) for w in text_for_matching(name.replace("_", " ").replace("-", " ")).split()} - STOPWORDS


def about_the_question(question: str, cited: Sequence[Passage], cited_token_sets: Sequence[set[str]],
                       subject: frozenset[str] = frozenset(), named: frozenset[str] = frozenset()) -> bool:
    """A cited file is named by the question ("gzip" for manuals/gzip.txt: its manual is about it,
    however the question is worded); else the cited passages hold most of the question's words,
    and its subject (`subject_of`) when known. A question that names a file of the folder
    (`files_named`: "the free command" where free.pdf is indexed) is about that file: a passage of
    zip's manual that says "free" is not."""
    asked = content_words(question)
    if not asked or any(asked & file_name_words(p) for p in cited):
        return True
    if named:
        return False
    held = set().union(*cited_token_sets) if cited_token_sets else set()
    if subject and not subject & held:
        return False
    return len(asked & held) / len(asked) >= DOCUMENTS.about_the_question


def _part_of(sentence: str) -> str:
    """The part a sentence of a joined answer answers: "Who wrote join" in "Who wrote join: Larry
    Wall.", "GNU ed" in "For GNU ed: bug-ed@gnu.org."; "" for a sentence of another shape."""
    part = sentence.split(":", 1)[0].strip() if ":" in sentence else ""
    return re.sub(r"^for\s+", "", part, flags=re.I)


def _about_their_parts(said: Sequence[str], found: Sequence[Sequence[int]], given: Sequence[Passage],
                       token_sets: Sequence[set[str]]) -> bool:
    """Each part's sentence rests on passages about its own part: a file the part names, or
    passages holding a word of the part that no other part has ("join" in "Who wrote join",
    beside "Who wrote the original patch": patch's manual, holding no "join", is the other part's
    file). A part with no word of its own ("What's the bug address" after "Which version is my diff
    manual from") may rest on the other part's file; a shared word ("wrote") proves nothing."""
    named = [content_words(_part_of(s)) for s in said]
    for n, cited in enumerate(found):
        if not cited or not named[n] or any(named[n] & file_name_words(given[i]) for i in cited):
            continue
        own = named[n] - set().union(*(w for m, w in enumerate(named) if m != n))
        if own and not own & set().union(*(token_sets[i] for i in cited)):
            return False
    return True


def files_named(question: str, file_names: Callable[[], frozenset[str]] | None) -> frozenset[str]:
    """The folder's files the question names by their one-word names ("free" for manuals/free.pdf,
    "zip" for zip.pdf): names of several words ("users-and-groups") are not read as named."""
    if file_names is None:
        return frozenset()
    return frozenset(text_for_matching(question).split()) & file_names()


def subject_of(question: str, passages_with: Callable[[str], int] | None) -> frozenset[str]:
    """The question's words that the fewest passages of the person's index hold (and some do):
    what it is most specifically about ("awk" in "the bug-report address for GNU awk", where "bug",
    "report" and "GNU" stand in many manuals). A word no passage holds is the question's own
    wording, not a subject the files could name. Empty without counts (no index to ask)."""
    if passages_with is None:
        return frozenset()
    words = dict.fromkeys(w for w in text_for_matching(question).split() if w not in STOPWORDS and len(w) > 1)
    counts = {w: passages_with(w) for w in words}
    held = {w: n for w, n in counts.items() if n > 0}
    if not held:
        return frozenset()
    fewest = min(held.values())
    return frozenset(stem(w) for w, n in held.items() if n == fewest)


# a question that asks for an address: an answer with none ("Paul Smith" for GNU make's bug
# address) does not state what was asked, whatever passage holds its words
_ASKS_ADDRESS = re.compile(r"\b(?:e-?mail|address|url|web\s?site|home\s?page)(?:s|es)?\b", re.I)


def answers_the_kind_asked(question: str, answer: str) -> bool:
    return not _ASKS_ADDRESS.search(question) or bool(atoms(answer))


def _each_part_answers_the_kind_asked(question: str, said: Sequence[str]) -> bool:
    """Each part's answer is of the kind its part asks ("For GNU grep: bug-reporting address." is
    no address); a part named only by its subject ("For GNU grep") asks what the question asks."""
    for sentence in said:
        asked, claimed = asked_and_claimed(question, sentence, True)
        if not answers_the_kind_asked(question if re.match(r"(?i)for\b", asked) else asked, claimed):
            return False
    return True


def ground_documents(answer: str, question: str, given: Sequence[Passage], honest: bool = True,
                     from_memory: bool = False, subject: frozenset[str] = frozenset(),
                     parts: bool = False, states: States | None = None,
                     named: frozenset[str] = frozenset()) -> Attribution:
    """parts: the answer joins the answers to the question's parts, a sentence each
    ("For bash: bug-bash@gnu.org. For GNU ed: bug-ed@gnu.org."): each stands alone, and none
    rests on a file another part names (`_about_their_parts`). states: the reader's re-read
    (documents_check.ReaderCheck.states): do the passages a sentence rests on give it as the answer
    to what was asked? None: the word check alone. named: the folder's files the question names
    (`files_named`). The re-read asks each part as asked alone (answering.parts), not by its label:
    a label may lean on the question ("How long does it wait")."""
    given = list(given)
    if from_memory:
        checked = ground_documents(answer, question, given, honest, subject=subject, states=states,
                                   named=named) if given else None
        if checked is not None and checked.grounding == SUPPORTED:
            return replace(checked, marked_text=f"{MEMORY_AGREES} {checked.marked_text}")
        # what was found first, then the guess: a person's files are what was asked about
        return Attribution(marked_text=f"{MEMORY_AFTER_SEARCH} {answer}", grounding=MEMORY)
    texts = [passage_words(p) for p in given]
    token_sets = [{stem(w) for w in t.split()} for t in texts]
    raw = [plain_hyphens(f"{p.path} {p.title} {p.text}") for p in given]
    # in a longer answer a sentence with one word of its own leans on the one before, unless that
    # word is an address, version or number, or the sentence answers a part ("For kill: TERM.")
    said = sentences(answer) or [answer]
    # a part's sentence ("LABEL: ANSWER.") is its answer to the part asked alone: its label's
    # words and numbers are the question's, not what the passage must state
    alone = questions_by_label(question) if parts else {}
    checked = [_part_claim(question, s, alone) if parts else (question, s) for s in said]
    found = [_stating(claim, asked, texts, token_sets, raw, 1 if len(said) == 1 or parts or atoms(claim) else 2)
             for asked, claim in checked]
    written = found  # where the words are written, before the re-read asks whether they answer
    if states is not None:
        found = [f if not f or states(asked, claim, [given[i] for i in f]) else []
                 for (asked, claim), f in zip(checked, found)]
    stated = _stated(said, found, question, parts)
    cited_ids = list(dict.fromkeys(i for f in found for i in f))
    backed = (not NO_ANSWER.match(text_for_matching(answer)) and all(stated) and bool(cited_ids)
              and (_each_part_answers_the_kind_asked(question, said) if parts
                   else answers_the_kind_asked(question, answer))
              and about_the_question(question, [given[i] for i in cited_ids], [token_sets[i] for i in cited_ids],
                                     subject, named)
              and (not parts or _about_their_parts(said, found, given, token_sets)))
    if not backed:
        if _all_written(answer, said, written, question, parts):  # a passage read holds it: say which
            return written_not_confirmed(said, written, given)
        return not_in_documents(answer, given, honest)
    return cite_sentences(said, found, given, SUPPORTED)


def _part_claim(question: str, sentence: str, alone: dict[str, str]) -> tuple[str, str]:
    """(the part asked alone, its answer) for a sentence of a joined answer."""
    asked, claimed = asked_and_claimed(question, sentence, True)
    return alone.get(asked, asked), claimed


def _stated(said: Sequence[str], found: Sequence[Sequence[int]], question: str, parts: bool = False) -> list[bool]:
    """Whether each sentence is stated: passages found for it, or (a short sentence with no word
    of its own beside a stated one: "She is the lead.") none needed; a part's answer always
    needs its own."""
    return [bool(f) or (not parts and len(said) > 1 and not key_tokens(s, question)) for s, f in zip(said, found)]


def _all_written(answer: str, said: Sequence[str], found: Sequence[Sequence[int]], question: str,
                 parts: bool = False) -> bool:
    """Every sentence of a real answer written in some passage read."""
    return (not NO_ANSWER.match(text_for_matching(answer)) and all(_stated(said, found, question, parts))
            and any(found))
