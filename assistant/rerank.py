"""Ranking a wide candidate pool with the trained relevance judge; the reader reads only the top.

Hybrid search finds both supporting paragraphs of a HotpotQA question in its top 10 for 75% of
questions; a trained judge over a wider pool can put them in the top few, and fewer, better
passages mean shorter prompts, which on a CPU is most of an answer's time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Generator, Sequence

from .context import RunContext
from .events import Event, Passage, Relevance


@dataclass
class Ranked:
    """The pool ordered by the judge: `kept` is what the reader reads."""

    kept: list[Passage]
    above_threshold: int  # how many passages the judge found relevant (0: RA-ISF decomposes)


def judge_pool(ctx: RunContext, question: str, pool: Sequence[Passage], parent: int | None = None,
               depth: int = 0) -> Generator[Event, None, Ranked]:
    """Score every pool passage, yield a Relevance event each (best first), keep the top ones.

    Kept: the passages at or above the judge's threshold, but at least `min_passages` and at most
    `max_passages` (settings); with none above the threshold the top min_passages are still kept,
    and `above_threshold` = 0 tells RA-ISF that nothing was judged relevant."""
    from models.relevance_judge import passage_text

    judge = ctx.relevance
    settings = ctx.settings
    scores = judge.score(question, [passage_text(p.title, p.text) for p in pool])
    order = sorted(range(len(pool)), key=lambda i: -scores[i])
    above = sum(s >= judge.threshold for s in scores)
    keep = min(settings.max_passages, max(settings.min_passages, above), len(pool))
    for rank_after, i in enumerate(order, 1):
        yield Relevance(step=ctx.step(), parent=parent, depth=depth, question=question,
                        passage_id=pool[i].id, relevant=rank_after <= keep, score=round(scores[i], 4),
                        judge=judge.name, rank_before=i + 1, rank_after=rank_after,
                        threshold=round(judge.threshold, 4))
    return Ranked(kept=[pool[i] for i in order[:keep]], above_threshold=above)
