"""Whether two short answers are the same answer written two ways: the answer a reader gave and what
it reads, asked again, in the lines that answer rests on ("-b" and "--binary" where the manual writes
"-b, --binary"; "900000" and "900 k"; "locale-provider" and "--locale-provider").

Asked "does this text give X as the answer?" a small reader says yes to most X the lines hold; asked
to answer from the lines itself, it names the line that answers, and a different line's fact (the
option beside the right one, another date of the same page) no longer passes.
"""
from __future__ import annotations

import re

from index_builder.extract.text import plain_hyphens

from .citations import STOPWORDS
from .settings import REREAD
from .written_forms import number_value

_WORD = re.compile(r"\d{1,3}(?:,\d{3})+|[\w.@/+=:-]+")  # "6,000" is one number
# what a reader writes when the lines do not answer
_NONE = re.compile(r"^(?:none|unknown|n/?a|not (?:stated|given|mentioned|specified)|the text does not)\b")


def _words(text: str) -> set[str]:
    return {w for w in (w.strip(".:") for w in _WORD.findall(text)) if w and w not in STOPWORDS}


def _contains(outer: str, inner: str) -> bool:
    """inner written in outer as whole words ("-b" in "-b, --binary", not in "-bz"; "6" not in "6,000")."""
    return re.search(rf"(?<![\w-])(?<!\d[.,]){re.escape(inner)}(?![\w-]|[.,]\d)", outer) is not None


def _plain(text: str) -> str:
    return plain_hyphens(text).strip().strip("\"'`").rstrip(".").strip().lower()


def written_as_one(passage: str, a: str, b: str, gap: int = REREAD.alias_gap) -> bool:
    """a and b written next to each other in the passage (at most `gap` characters apart): an
    option's two names ("-b, --binary")."""
    text = _plain(passage)
    starts_a = [m.span() for m in re.finditer(re.escape(a), text)]
    starts_b = [m.span() for m in re.finditer(re.escape(b), text)]
    return any(0 <= max(sa, sb) - min(ea, eb) <= gap for sa, ea in starts_a for sb, eb in starts_b)


def same_answer(claim: str, read: str, passage: str = "") -> bool:
    """Whether `read` (what the reader answered from the lines) is `claim` written another way:
    one holds the other as whole words, the same number, every word of the shorter in the longer,
    or two names of one option side by side in the passage."""
    c, r = _plain(claim), _plain(read)
    if not c or not r or _NONE.match(r):
        return False
    if _contains(r, c) or _contains(c, r):
        return True
    bare = c.lstrip("-")  # an option read without its dashes: "locale-provider", "level 6" for "-6"
    if bare != c and bare and (_contains(r, bare) or r.lstrip("-") == bare):
        return True
    value = number_value(c)
    if value is not None and value == number_value(r):
        return True
    cw, rw = _words(c), _words(r)
    if cw and (cw <= rw or rw and rw <= cw and 2 * len(rw) >= len(cw)):
        return True
    return bool(passage) and written_as_one(passage, c, r)
