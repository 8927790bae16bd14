"""The interface every strategy implements (answer generation is assistant/answering/generate.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..answering.generate import StrategyRun
from ..context import Result, RunContext
from ..grounding.citations import Attribution, attribute

if TYPE_CHECKING:
    from ..grounding.verdict import GroundingRule
from .options import Option, StrategyOptions, as_spec_text


class Strategy:
    """A way of answering; `run` yields step events and returns the Result."""

    name = ""
    needs_index = True
    Options: type[StrategyOptions] = StrategyOptions  # declared once: typed fields with defaults

    def __init__(self, **options):
        self.opts = self.Options.parse(self.name, options)  # OptionError when one is bad
        self.options = options  # as given: the Started event shows them

    @property
    def reads_relevance_judge(self) -> bool:
        """Whether answers depend on the relevance judge setting (results made with another judge
        must not be mixed in: evaluation/harness.py)."""
        return False

    @property
    def grounding(self) -> "GroundingRule | None":
        """The rule of the grounding check of its answers (assistant/grounding/verdict.py), or None for the
        older word-overlap attribution (assistant/grounding/citations.py)."""
        return None

    def attribution(self, text: str, result: Result, question: str, ctx: RunContext) -> Attribution:
        """The answer's citations and label (the runner asks once, after the run): here, by word
        overlap with the passages read (assistant/grounding/citations.py); the default strategy's
        profile decides them with its grounding check."""
        return attribute(text, question, result.citations)

    @classmethod
    def declared_options(cls) -> tuple[Option, ...]:
        return cls.Options.declared()

    @classmethod
    def option_names(cls) -> Sequence[str]:
        return tuple(option.name for option in cls.declared_options())

    def with_options(self, **changes) -> "Strategy":
        """The same strategy with some options set from code, checked and shown as a spec's would be."""
        return type(self)(**{**self.options, **{name: as_spec_text(v) for name, v in changes.items()}})

    @classmethod
    def refeed_flags(cls, drafts: int | None, ensemble: bool) -> dict:
        """The options `ask --drafts N / --no-ensemble` set (ReFeed's fields); a strategy without
        them refuses them as it would in a spec."""
        return ({"drafts": drafts} if drafts is not None else {}) | ({} if ensemble else {"ensemble": False})

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        raise NotImplementedError
