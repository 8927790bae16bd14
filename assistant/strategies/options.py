"""Strategy options, declared once per strategy and checked in one place.

A strategy lists its options as `Option`s (kind, default, range or allowed values); `parse_options`
turns the text of a spec ("ra-isf:depth=1,relevance=false") into typed values, and any bad one
into one OptionError line that names the strategy, the option, the value and what is allowed.
The README's strategy table is checked against these declarations (tests/test_strategy_options.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from models.errors import OptionError

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class Option:
    """One option: bool, int (within low-high) or text (one of `choices`; with `subset`, a
    '+'-joined part of them). `aliases` are other names for a choice, e.g. ppl for perplexity.
    A default of None means the setting of the same name (e.g. ra-isf's depth: settings.depth)."""

    name: str
    kind: type
    default: object = None
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    subset: bool = False

    def allowed(self) -> str:
        if self.kind is bool:
            return "true or false"
        if self.kind is int:
            return f"a whole number from {self.low} to {self.high}"
        if self.subset:
            return f"{'+'.join(self.choices)} or a part of it"
        return "one of " + ", ".join(self.choices)

    def parse(self, text: str):
        """The typed value of `text`, or ValueError when it is not allowed."""
        text = text.strip()
        if self.kind is bool:
            if text.lower() in _TRUE + _FALSE:
                return text.lower() in _TRUE
            raise ValueError
        if self.kind is int:
            number = int(text)  # ValueError for "x", "1.5", ""
            if not self.low <= number <= self.high:
                raise ValueError
            return number
        names = dict(self.aliases)
        if self.subset:
            parts = tuple(names.get(p, p) for p in text.split("+") if p)
            if not parts or any(p not in self.choices for p in parts):
                raise ValueError
            return parts
        value = names.get(text, text)
        if value not in self.choices:
            raise ValueError
        return value


def parse_options(strategy: str, declared: Sequence[Option], given: Mapping[str, object]) -> dict:
    """Every declared option's value: the given one, checked, or the default."""
    known = {option.name: option for option in declared}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise OptionError(f"strategy '{strategy}' has no option {', '.join(unknown)} "
                          f"(options: {', '.join(known) or 'none'})")
    values = {}
    for name, option in known.items():
        if name not in given:
            values[name] = option.default
            continue
        text = _as_text(given[name])
        try:
            values[name] = option.parse(text)
        except ValueError:
            raise OptionError(f"strategy '{strategy}': option {name} takes {option.allowed()}, "
                              f"not {text!r}") from None
    return values


def _as_text(value) -> str:
    """A value given from code (True, 3, ("rewrite",)) as a spec would write it: checked alike."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "+".join(map(str, value))
    return str(value)


def flag(name: str, default: bool) -> Option:
    return Option(name, bool, default)


def whole(name: str, default: int | None, low: int, high: int) -> Option:
    return Option(name, int, default, low, high)
