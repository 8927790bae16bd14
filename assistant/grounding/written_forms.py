"""One number, several ways of writing it: "1,000,000" and "1000000", "900 k" and "900000" (and for
options, "−i" of a groff PDF and "-i": index_builder.extract.text.plain_hyphens).

A person's manuals write sizes and counts as people do, and the reader answers in another form;
the word check must find the number, not the characters. A small number a text spells out ("holds
twelve people", "twenty-five") is found too; "one" is not read as 1 (it is far more often a pronoun:
"the one that", "one of").
Only whole integers: "6" is not read inside "6,000", "1.5" or "1996".
"""
from __future__ import annotations

import re

# digits grouped by commas, or plain; an optional k, K or M right after (or after one space)
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\s?([kKM])(?!\w))?(?!\w|[.,]\d)")
_TIMES = {"k": 1_000, "K": 1_000, "M": 1_000_000}
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TEN = _UNITS.index("ten")
_TENS = {w: _TEN * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_SPELLED = re.compile(rf"\b(?:({'|'.join(_TENS)})(?:[- ]({'|'.join(_UNITS[1:_TEN])}))?|({'|'.join(_UNITS)}))\b", re.I)


def _value(digits: str, suffix: str | None) -> int:
    return int(digits.replace(",", "")) * _TIMES.get(suffix or "", 1)


def number_value(token: str) -> int | None:
    """The integer a token writes ("1,000,000", "900k", "42"), else None."""
    match = _NUMBER.fullmatch(token.strip())
    return _value(*match.groups()) if match else None


def number_written(text: str, value: int) -> str | None:
    """How the text writes this number ("900 k" for 900000), or None when it never does."""
    for match in _NUMBER.finditer(text):
        if _value(*match.groups()) == value:
            return match.group(0)
    if value >= 2:  # spelled out: up to ninety-nine
        for match in _SPELLED.finditer(text):
            if _spelled_value(*match.groups()) == value:
                return match.group(0)
    return None


def _spelled_value(tens: str | None, unit: str | None, alone: str | None) -> int:
    if alone:
        return _UNITS.index(alone.lower())
    return _TENS[tens.lower()] + (_UNITS.index(unit.lower()) if unit else 0)
