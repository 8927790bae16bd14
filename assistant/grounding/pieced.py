"""The label for an answer its pages lead to but do not state: "pieced together".

The grounding check says an answer is supported when each sentence has passages backing it. For
two kinds of answer that says less than it seems: a pick between what the question names ("Who is
older, A or B?", a bare yes or no), whose pages give each option's facts but none says which wins;
and the last hop of a chain the reader worked out through sub-questions, whose page states the
answer's words about an entity the reader chose on the way: "supported" would vouch for a step
no page takes (EVALUATION.md, "What 'supported' means"). They keep their citations; the label and
the line before the answer say in plain words what was found: the pages, not the answer.
"""
from __future__ import annotations

import re
from dataclasses import replace

from ..answering.origin import Origin
from .citations import Attribution
from .verdict import SUPPORTED

PIECED = "pieced together"
PIECED_NOTE = "Pieced together from the pages found; none of them states this answer in so many words:"
# the sources that reach an answer through sub-questions (RA-ISF's decomposition, the missing hop)
CHAINED = frozenset({"multi-hop", "decomposition"})
_PICK = re.compile(r"\bor\b", re.I)
_YES_NO = re.compile(r"^\s*(yes|no)\b", re.I)


def pieced_together(question: str, answer: str, resolved_by: str) -> bool:
    """Whether the answer is a pick or a chain's last hop rather than a passage's statement."""
    return (Origin.parse(resolved_by).source in CHAINED or _PICK.search(question) is not None
            or _YES_NO.match(answer) is not None)


def label_pieced(checked: Attribution, question: str, answer: str, resolved_by: str) -> Attribution:
    """A supported answer that was pieced together, labelled so; any other unchanged."""
    memory = Origin.parse(resolved_by).source == "self-knowledge"  # labelled as memory's already
    if checked.grounding != SUPPORTED or memory or not pieced_together(question, answer, resolved_by):
        return checked
    return replace(checked, grounding=PIECED, marked_text=f"{PIECED_NOTE} {checked.marked_text}")
