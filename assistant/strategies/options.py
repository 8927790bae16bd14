"""Strategy options, declared once per strategy as a typed class and checked in one place.

A strategy declares its options as a frozen dataclass (`StrategyOptions`): each field's type says
its kind (bool; `Annotated[int, Range(low, high)]`; a `Literal` of choices, optionally with
`Aliases`; `Annotated[tuple[Literal[...], ...], Subset()]` for a '+'-joined part of the choices)
and its default. `StrategyOptions.parse` turns the text of a spec ("ra-isf:depth=1,relevance=false")
or values given from code into an instance whose fields are read by name, and any bad value into
one OptionError line that names the strategy, the option, the value and what is allowed. The
docs/strategies.md's strategy table is checked against these declarations (tests/strategies/test_strategy_options.py).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Literal, Mapping, Sequence, get_args, get_origin, get_type_hints

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
        text = as_spec_text(given[name])
        try:
            values[name] = option.parse(text)
        except ValueError:
            raise OptionError(f"strategy '{strategy}': option {name} takes {option.allowed()}, "
                              f"not {text!r}") from None
    return values


def as_spec_text(value) -> str:
    """A value given from code (True, 3, ("rewrite",)) as a spec would write it: checked alike."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "+".join(map(str, value))
    return str(value)


@dataclass(frozen=True)
class Range:
    """Annotated[int, Range(low, high)]: a whole number within low-high."""

    low: int
    high: int


@dataclass(frozen=True)
class Aliases:
    """Annotated[Literal[...], Aliases(("ppl", "perplexity"))]: other names for a choice."""

    pairs: tuple[tuple[str, str], ...]

    def __init__(self, *pairs: tuple[str, str]):
        object.__setattr__(self, "pairs", tuple(pairs))


@dataclass(frozen=True)
class Subset:
    """Annotated[tuple[Literal[...], ...], Subset()]: a '+'-joined part of the choices."""


def _option(name: str, hint, default) -> Option:
    """The Option a typed field declares (its kind, range or choices read from the annotation)."""
    marks = ()
    if get_origin(hint) is Annotated:
        hint, *marks = get_args(hint)
    if hint is bool:
        return Option(name, bool, default)
    args = [a for a in get_args(hint) if a is not type(None)]
    if hint is int or args == [int]:  # int, or int | None (None: the setting of the same name)
        bound = next(m for m in marks if isinstance(m, Range))
        return Option(name, int, default, bound.low, bound.high)
    aliases = next((m.pairs for m in marks if isinstance(m, Aliases)), ())
    if any(isinstance(m, Subset) for m in marks):  # tuple[Literal[...], ...]
        return Option(name, str, default, choices=get_args(get_args(hint)[0]), aliases=aliases, subset=True)
    if get_origin(hint) is Literal:
        return Option(name, str, default, choices=get_args(hint), aliases=aliases)
    raise TypeError(f"option {name}: unsupported type {hint!r}")


@dataclass(frozen=True)
class StrategyOptions:
    """Base of every strategy's options class (a frozen dataclass; no options: this class)."""

    @classmethod
    def declared(cls) -> tuple[Option, ...]:
        hints = get_type_hints(cls, include_extras=True)
        return tuple(_option(f.name, hints[f.name], f.default) for f in dataclasses.fields(cls))

    @classmethod
    def parse(cls, strategy: str, given: Mapping[str, object]) -> "StrategyOptions":
        """The options `given` (spec text or typed values), checked; defaults for the rest."""
        return cls(**parse_options(strategy, cls.declared(), given))

    def changed(self) -> dict:
        """The options that differ from their defaults (what a spec would have to say)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) != f.default}
