"""The default strategy's options: each stage and check on or off, and the grounding rule's shares.

Kept apart from the pipeline (strategies/default.py, assistant/profiles/) so that the algorithm
reads without them; each field is a `--strategy default:NAME=VALUE` option (docs/strategies.md).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Literal

from ..checks import CHECKS
from ..grounding.verdict import GroundingRule
from .options import Range, StrategyOptions
from .refeed import KeepRule

PERCENT = 100  # coverage and names are given in percent; the rule takes shares


@dataclass(frozen=True)
class StageOptions(StrategyOptions):
    """The stages' and the grounding rule's options; each answer check adds its own below."""

    self_knowledge: bool = True
    relevance: bool = True
    hop: Literal["auto", "always", "never"] = "auto"
    hop_read: Literal["union", "first"] = "union"
    hop_facts: bool = False
    chain: bool = True  # the read set picked hop by hop (assistant/retrieval/chain_read.py), in hop order
    refine: bool = True
    keep: KeepRule = "prob"
    # trust (assistant/grounding/verdict.py): cite by the trained check; label what nothing supports
    # "not in your documents"; allow answers from the reader's memory (labelled as such); let the
    # check also read claim and passage together with its small cross-encoder (off: it lost to
    # the word features on recorded answers to training questions, models/grounding_model/encoder)
    ground: bool = True
    honest: bool = True
    memory: bool = True
    memory_check: bool = True  # an answer from memory is looked up; the documents backing it are cited
    encoder: bool = False
    # the share (%) of the question's words, each weighed by its rarity (coverage), and of its
    # names and numbers (names: then also every name and number the answer states), that the
    # cited passages must hold together for the answer to be presented as supported; 0: off
    # (chosen on training questions: lab/notes/history.md "Question coverage", and "Trust: rare
    # words weigh more, a repeating page is not cited")
    coverage: Annotated[int, Range(0, 100)] = 65
    rarity: bool = True  # false: coverage counts every word of the question once
    repeats: bool = False  # true: also cite a page that adds no word of the question or answer
    compare: bool = True  # false: the pages a comparison names are held to coverage and links too
    names: Annotated[int, Range(0, 100)] = 75
    # on a person's own files (an index of folders and files only): the profile made for them
    # (assistant/profiles/files.py); false: the encyclopedia pages' profile everywhere
    documents: bool = True
    # on such files, a short answer the word check finds written in a cited passage is read
    # again by the reader, with the lines around it: supported only if they give it as the
    # answer (one short call per claim; assistant/grounding/documents_check.py)
    reread: bool = True

    def grounding_rule(self) -> GroundingRule | None:
        """The grounding check's rule these options give; None when `ground` is off."""
        if not self.ground:
            return None
        return GroundingRule(self.honest, self.encoder, self.coverage / PERCENT, self.names / PERCENT,
                             self.rarity, self.repeats, self.compare)


def with_check_options(base: type[StageOptions], checks=CHECKS) -> type[StageOptions]:
    """`base` plus one on/off option per registered answer check (assistant/checks/__init__.py),
    named by the check (`yes_no`, `dates`, `nationality`): a new check is registered there only."""
    fields = [(check.option, bool, dataclasses.field(default=True)) for check in checks]
    return dataclasses.make_dataclass("DefaultOptions", fields, bases=(base,), frozen=True,
                                      namespace={"__module__": __name__, "__doc__": "The default strategy's options."})


DefaultOptions = with_check_options(StageOptions)
