"""The grounding check's tuned values (assistant/tuning.py): how the trained check cites
(verdict.py), how words are matched (citations.py, features.py), the check for a person's own files
(documents.py) and the reader's re-read of the lines an answer rests on (documents_check.py,
agreement.py). The figures behind them: lab/notes/history.md's "Trust: ..." sections and
EVALUATION.md, "Your own documents"."""
from __future__ import annotations

from dataclasses import dataclass

from ..tuning import SettingsGroup, setting

QWEN = "qwen2.5-coder-1.5b"  # the reader whose recorded answers these were chosen on


@dataclass(frozen=True)
class CitingSettings(SettingsGroup):
    """How the trained check cites the passages of an answer (verdict.py)."""

    max_claim: int = setting(2, bound=(1, 10), reader=QWEN, why=(
        "passages cited for one claim at most: a third was more often than not a distractor holding the "
        "answer's words; cutting it cited fewer wrong passages and lost no support"))
    max_hop: int = setting(2, bound=(0, 2), reader=QWEN, why=(
        "bridges cited at most: 1 cut the chain question -> bridge -> page stating the answer when the "
        "claim trees chose the answer's own page (tests/grounding/test_grounding.py)"))
    closest: int = setting(3, bound=(1, 20), why="passages shown as the closest when nothing supports the answer")
    second_bridge: float = setting(0.7, bound=(0.0, 1.0), reader=QWEN, why=(
        "a second bridge, scored given the first, must be surer than the first (hop threshold 0.3): the "
        "citations stay on gold pages more often and MuSiQue's three-page chains keep their third page "
        "(lab/notes/history.md, 'Trust: the page stating a short answer')"))
    stating_floor: float = setting(0.15, bound=(0.0, 1.0), reader=QWEN, why=(
        "a page stating the answer that the claim trees doubt (score at least this) counts only with a "
        "linked bridge (lab/notes/history.md, 'Trust: the page stating a short answer')"))
    stating_coverage: float = setting(0.8, bound=(0.0, 1.0), reader=QWEN, why=(
        "share of the question's words that page and its bridge hold together: higher lost right answers, "
        "lower let answers whose support was hidden in (lab/notes/history.md, 'Trust: the page stating a "
        "short answer')"))
    encoder_threads: int = setting(2, bound=(1, 64), why=(
        "threads of the optional grounding encoder: it runs beside nothing else at the end of an answer"))


@dataclass(frozen=True)
class MatchingSettings(SettingsGroup):
    """How words are matched (citations.py, features.py); the grounding trees were trained on
    features made with these values, so changing one means training them again."""

    stem_above_letters: int = setting(3, bound=(1, 20), why=(
        "a plural or third-person 's' comes off words longer than this ('leads' covers 'lead'; 'bus' stays)"))
    min_share: float = setting(0.5, bound=(0.0, 1.0), why=(
        "a sentence is supported by words when the chosen passages hold at least this share of its key words"))
    key_parts: int = setting(3, bound=(1, 20), why=(
        "each passage chosen for a sentence must add at least 1/key_parts of its key words (rounded up)"))
    near_window: int = setting(20, bound=(1, 200), why=(
        "words either side of a claim word in which the question's words count as near (feature near_question)"))
    shared_prefix: int = setting(5, bound=(1, 20), why=(
        "long words sharing this many first letters count as one ('Portugal' and 'Portuguese', a misspelt name)"))


@dataclass(frozen=True)
class DocumentsSettings(SettingsGroup):
    """The word check for a person's own files (documents.py)."""

    about_the_question: float = setting(0.5, bound=(0.0, 1.0), why=(
        "share of the question's content words the cited passages (with their paths and titles) must hold: "
        "a passage holding the answer's words but about another program does not support it"))
    as_written_words: int = setting(3, bound=(1, 20), why=(
        "a short answer of at most this many words whose words the question already holds ('.venv') is "
        "looked for as written"))


@dataclass(frozen=True)
class RereadSettings(SettingsGroup):
    """The reader's re-read of the lines a short answer rests on (documents_check.py, agreement.py)."""

    window_words: int = setting(45, bound=(5, 500), why=(
        "words each side of the answer shown to the reader: a manual's option line and its neighbours, "
        "a sentence or two"))
    short_claim: int = setting(8, bound=(1, 100), why=(
        "a claim of more words is a sentence (a summary), not a fact to find on one line: not read again"))
    max_passages: int = setting(2, bound=(1, 10), why="cited passages read again per claim at most, best first")
    read_tokens: int = setting(24, bound=(1, 512), why=(
        "tokens the reader may write answering from the lines itself (the second, confirming call)"))
    p_yes_digits: int = setting(3, bound=(1, 17), why=(
        "digits P(yes) keeps in a verdict (shown, recorded, and weighed against the next passage's)"))
    shown_words: int = setting(12, bound=(1, 100), why="words shown of what the reader read back, in the step line")
    alias_gap: int = setting(12, bound=(0, 200), why=(
        "characters between an option and its other name for the two to be one option written twice ('-b, --binary')"))


CITING = CitingSettings()
MATCHING = MatchingSettings()
DOCUMENTS = DocumentsSettings()
REREAD = RereadSettings()
