"""The default `ask` pipeline: RA-ISF's gate and judge, the missing hop when the support is short,
ReFeed's check of the answer against a fresh search, the answer checks, then the grounding check.

The stages differ by the kind of source searched, so each kind has its profile
(assistant/profiles/): `pages` for a Wikipedia dump, passage files and datasets (pages.py lists its
seven stages), `files` for a person's own folders and files (files.py). The profile is chosen once
per question from the sources searched; it runs its stages (each opens with a `pipeline.stage`
step, its own steps below it) and decides the grounding, which the runner asks for through
`attribution`. Every stage and check is an option (default_options.py), so each has its ablation
row (EVALUATION.md).
"""
from __future__ import annotations

from ..answering.generate import StrategyRun
from ..context import Result, RunContext
from ..grounding.citations import Attribution
from ..grounding.verdict import GroundingRule
from ..profiles import QuestionRun, profile_for
from .base import Strategy
from .default_options import DefaultOptions


class DefaultPipeline(Strategy):
    Options = DefaultOptions
    name = "default"

    @classmethod
    def refeed_flags(cls, drafts: int | None, ensemble: bool) -> dict:
        """Its ReFeed step has one draft; --no-ensemble keeps the refinement (keep=refined)."""
        return ({"drafts": drafts} if drafts is not None else {}) | ({} if ensemble else {"keep": "refined"})

    @property
    def reads_relevance_judge(self) -> bool:
        return self.opts.relevance

    @property
    def grounding(self) -> GroundingRule | None:
        return self.opts.grounding_rule()

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        run = QuestionRun(question, ctx, self.opts)
        return (yield from profile_for(ctx, self.opts).answer(run))

    def attribution(self, text: str, result: Result, question: str, ctx: RunContext) -> Attribution:
        """The profile's grounding under the options' rule (word overlap when `ground` is off)."""
        rule = self.grounding
        if rule is None:
            return super().attribution(text, result, question, ctx)
        return profile_for(ctx, self.opts).ground(QuestionRun(question, ctx, self.opts), text, result, rule)
