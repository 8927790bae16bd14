"""The default `ask` pipeline: RA-ISF answers, then ReFeed checks that answer against retrieval.

Each half opens with a `pipeline.stage` step and its own steps hang below it, so a trace shows
where RA-ISF ended and the refinement began. When the reader-call bound is hit during the
refinement, RA-ISF's answer stands.
"""
from __future__ import annotations

from models.errors import BudgetExceeded

from ..context import RunContext
from ..events import Detail, Note
from .base import Strategy, StrategyRun
from .options import flag, whole
from .ra_isf import RaIsf
from .refeed import MAX_DRAFTS, Candidate, refine, sample_drafts


class DefaultPipeline(Strategy):
    name = "default"
    # RA-ISF's options, then ReFeed's: drafts counts RA-ISF's answer plus drafts-1 sampled ones
    OPTIONS = RaIsf.OPTIONS + (whole("drafts", 1, 1, MAX_DRAFTS), flag("ensemble", True), flag("refine", True))

    def __init__(self, **options):
        super().__init__(**options)
        self.ra_isf = RaIsf(**{k: v for k, v in options.items() if k in RaIsf.option_names()})
        self.drafts = self.values["drafts"]
        self.ensemble = self.values["ensemble"]
        self.refine = self.values["refine"]

    def run(self, question: str, ctx: RunContext) -> StrategyRun:
        first = ctx.step()
        yield Detail(step=first, kind="pipeline.stage", summary="RA-ISF: self-knowledge, retrieval, relevance, "
                     "decomposition", data={"stage": 1, "strategy": "ra-isf"})
        bound = self.ra_isf.depth if self.ra_isf.depth is not None else ctx.settings.depth
        answer = yield from self.ra_isf.solve(question, ctx, level=0, bound=bound, parent=first)
        if not self.refine:
            return answer

        second = ctx.step()
        yield Detail(step=second, kind="pipeline.stage", summary="ReFeed: retrieve with the answer, refine, "
                     "keep the likelier", data={"stage": 2, "strategy": "refeed", "draft": answer.text})
        drafts = [Candidate(answer.text, answer.avg_prob or 0.0, citations=answer.citations,
                            basis=answer.resolved_by)]
        try:
            drafts += yield from sample_drafts(question, self.drafts - 1, ctx, parent=second)
        except BudgetExceeded as exc:
            yield Note(step=ctx.step(), parent=second, message=f"{exc}; refining RA-ISF's answer alone")
        final = yield from refine(question, drafts, ctx, ensemble=self.ensemble, parent=second)
        if final.resolved_by == "refinement":
            final.resolved_by = f"{answer.resolved_by}+refined"
        return final
