"""Typed messages for the steps only one strategy takes (a pipeline stage, ReFeed's check,
RQ-RAG's refinements, LLMQA's expansion and rerank).

Each is a `Detail` event with named fields, so front ends (assistant/presentation/step_text.py, the app) read
them by name instead of decoding a dict. On the wire they keep one shape: `{"type": "detail",
"kind": ..., "summary": ..., "data": {the fields}}` (`--json`, recorded results).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .core import Detail, register_detail


@dataclass
class Scored:
    """An answer as a check weighs it: the reader's confidence and, with a judged pool, the
    judge's support for it (the best passage's score that holds it)."""

    text: str = ""
    avg_prob: float = 0.0
    support: float | None = None
    basis: str = ""
    sampled: bool = False


@dataclass
class FeedbackPassage:
    id: str = ""
    score: float = 0.0
    label: str = ""


@dataclass
class Expansion:
    text: str = ""
    score: float = 0.0
    avg_prob: float = 0.0


@register_detail
@dataclass
class PipelineStage(Detail):
    """Opens a stage of the default pipeline; the stage's own steps hang below it."""

    kind: ClassVar[str] = "pipeline.stage"
    stage: int = 0  # numbered in the order shown
    module: str = ""  # self-knowledge | retrieve | hop | multi-hop answer | refeed | yes/no | parts | reread
    strategy: str = ""  # the method it comes from
    why: str = ""  # the hop: why it runs
    draft: str = ""  # refeed: the answer being checked


@register_detail
@dataclass
class RefeedDrafts(Detail):
    kind: ClassVar[str] = "refeed.drafts"
    drafts: list[Scored] = field(default_factory=list)
    NESTED: ClassVar[dict[str, type]] = {"drafts": Scored}


@register_detail
@dataclass
class RefeedFeedback(Detail):
    kind: ClassVar[str] = "refeed.feedback"
    passages: list[FeedbackPassage] = field(default_factory=list)
    NESTED: ClassVar[dict[str, type]] = {"passages": FeedbackPassage}


@register_detail
@dataclass
class RefeedDecision(Detail):
    kind: ClassVar[str] = "refeed.decision"
    kept: str = ""  # refined | draft
    rule: str = ""  # prob | refined | support
    ensemble: bool = True  # False: the refinement is kept without comparing
    draft: Scored = field(default_factory=Scored)
    refined: Scored = field(default_factory=Scored)
    NESTED: ClassVar[dict[str, type]] = {"draft": Scored, "refined": Scored}


@register_detail
@dataclass
class SearchDecision(Detail):
    """RQ-RAG: whether to search at all."""

    kind: ClassVar[str] = "rq-rag.search-decision"
    search: bool = False
    p_search: float = 0.0


@register_detail
@dataclass
class QueryRefined(Detail):
    """RQ-RAG: one refinement of the query (rewrite, decompose, disambiguate)."""

    kind: ClassVar[str] = "rq-rag.refine"
    action: str = ""
    query: str = ""
    avg_prob: float = 0.0


@register_detail
@dataclass
class Trajectory(Detail):
    """RQ-RAG: one finished path of refinements, its answer and its score."""

    kind: ClassVar[str] = "rq-rag.trajectory"
    index: int = 0
    steps: list[dict] = field(default_factory=list)  # {"action", "query"}
    answer: str = ""
    confidence: float = 0.0
    perplexity: float = 0.0
    score: float = 0.0
    selection: str = ""
    chosen: bool = False
    answer_step: int = 0
    passages: list[str] = field(default_factory=list)


@register_detail
@dataclass
class QueryExpanded(Detail):
    """LLMQA: the expansions sampled and the one chosen."""

    kind: ClassVar[str] = "llmqa.expansion"
    expansions: list[Expansion] = field(default_factory=list)
    chosen: int = 0
    by: str = ""
    NESTED: ClassVar[dict[str, type]] = {"expansions": Expansion}


@register_detail
@dataclass
class Reranked(Detail):
    """LLMQA: the reader's listwise rerank in sliding windows."""

    kind: ClassVar[str] = "llmqa.rerank"
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    windows: list[dict] = field(default_factory=list)  # {"start", "end", "reply", "order"}
    window: int = 0
    step_size: int = 0


@register_detail
@dataclass
class QuestionRewritten(Detail):
    """A follow-up rewritten into a question that stands alone (RQ-RAG's rewrite), before any
    search: the thread's earlier turns are not passed on to the answer."""

    kind: ClassVar[str] = "conversation.rewrite"
    question: str = ""  # as asked
    standalone: str = ""


@dataclass
class ChainHop:
    """One passage of the read set as the chain selector picked it."""

    id: str = ""
    title: str = ""
    hop: int = 0  # its place in the chain (the answer prompt's order)
    found_by: str = ""  # "pool" or "hop N search" (the question plus hop N's passage)
    bridge: str = ""  # the kept passage's title it names or is named by, if any
    score: float = 0.0  # the chain scorer's probability when picked
    in_chain: bool = True  # False: picked after the chain looked complete, to fill the read budget


@register_detail
@dataclass
class ChainSelected(Detail):
    """The default pipeline's read set chosen as a chain (assistant/retrieval/chain_read.py): which hop found what."""

    kind: ClassVar[str] = "chain.selected"
    hops: list[ChainHop] = field(default_factory=list)
    searches: int = 0  # hop searches made (no reader call)
    NESTED: ClassVar[dict[str, type]] = {"hops": ChainHop}


@register_detail
@dataclass
class YesNoCheck(Detail):
    """The default pipeline's yes/no answer decided again against the reader's lean to yes
    (assistant/checks/yes_no.py)."""

    kind: ClassVar[str] = "yes_no.check"
    answer: str = ""  # what the reader wrote: Yes or No
    log_odds: float = 0.0  # log P(yes) - log P(no) given the question and the passages read
    lean: float = 0.0  # the reader's measured lean (the catalog's yes_lean)
    decided: str = ""  # Yes when log_odds > lean, else No


@register_detail
@dataclass
class DatedChoice(Detail):
    """The default pipeline's pick between two options decided by the dates their pages give
    (assistant/checks/dated_choice.py)."""

    kind: ClassVar[str] = "dates.choice"
    options: list[str] = field(default_factory=list)  # the two, in the question's order
    answer: str = ""  # the option the reader wrote
    decided: str = ""  # the option with the earlier (or later) date
    pages: list[str] = field(default_factory=list)  # the titles of the pages that gave the dates
    dates: list[str] = field(default_factory=list)  # as the pages write them
    event: str = ""  # start (a birth, a release, a founding) or death
    earlier: bool = True  # the question asks for the earlier date


@register_detail
@dataclass
class NationalityCheck(Detail):
    """The default pipeline's yes/no about two things' nationality decided by their pages
    (assistant/checks/nationality.py)."""

    kind: ClassVar[str] = "nationality.check"
    answer: str = ""  # what the reader wrote: Yes, No or unknown
    decided: str = ""  # Yes or No
    pages: list[str] = field(default_factory=list)  # the two pages the question names
    nations: list[list[str]] = field(default_factory=list)  # the nationality each page's opening gives
    asked: str = ""  # "same", or the nationality both are asked to have


@register_detail
@dataclass
class FolderQuestion(Detail):
    """A question about the folder itself answered from what the index knows of its files
    (assistant/folder/answers.py): which files mention a topic, how many, a count or
    list of files by kind, or one file read through to summarise it."""

    kind: ClassVar[str] = "folder.question"
    asked: str = ""  # which | count | count-files | list-files | summary
    topic: str = ""  # what the files must mention; for a summary, the file as named
    file_kind: str = ""  # pdf, word, text, ... ("" any file)
    files: list[str] = field(default_factory=list)  # the files found (named by their path), or the file read
    total: int = 0  # files in the index (the collection searched)
    passages: int = 0  # passages that mention the topic, or passages of the file read


@register_detail
@dataclass
class AnswerReread(Detail):
    """On a person's files, the reader read again the lines of a cited file around an answer it
    wrote (assistant/grounding/documents_check.py): does the file give it as the answer?"""

    kind: ClassVar[str] = "documents.reread"
    asked: str = ""  # the question, or the part of it this answer answers
    claim: str = ""  # the answer checked
    path: str = ""  # the file read again
    p_yes: float = 0.0  # the reader's P(yes) over yes and no
    confirmed: bool = False  # at or above the threshold, and read there as the answer: presented as supported
    read: str = ""  # what the reader answers from those lines itself, not shown the claim
