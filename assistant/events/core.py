"""The step-event vocabulary every strategy emits and every front end consumes.

A run of one question is a stream of events; the Answer is the last. Events form a tree
through `step` and `parent` ids: a sub-question's steps have its SubQuestion step as
ancestor. Every event serialises to a flat JSON object with a `type` field.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

SHOWN_DIGITS = 4  # scores and probabilities in steps and records: enough to compare, short to read


def shown(value: float) -> float:
    """A score or probability as the steps carry it (rounded to SHOWN_DIGITS)."""
    return round(value, SHOWN_DIGITS)


@dataclass
class Passage:
    """A retrieved passage with where it came from (for citations)."""

    id: str
    text: str
    title: str = ""
    source: str = ""  # the indexed source (folder, dump or passage file)
    path: str = ""  # file path, or article title for Wikipedia
    page: int | None = None  # PDF page, when known
    section: str = ""
    score: float = 0.0

    def citation_label(self) -> str:
        where = self.path or self.title or self.id
        if self.page:
            where += f", page {self.page}"
        return where


@dataclass
class Event:
    type: ClassVar[str] = "event"
    step: int = 0
    parent: int | None = None
    depth: int = 0

    def to_dict(self) -> dict[str, Any]:
        data = {"type": self.type}
        data.update(dataclasses.asdict(self))
        return data


@dataclass
class Started(Event):
    type: ClassVar[str] = "started"
    question: str = ""
    strategy: str = ""
    options: dict = field(default_factory=dict)


@dataclass
class SelfKnowledge(Event):
    type: ClassVar[str] = "self_knowledge"
    question: str = ""
    knows: bool = False
    score: float = 0.0  # probability of "knows"
    judge: str = ""  # backend that decided, e.g. "reader" or "t5-onnx/cpu"
    threshold: float | None = None  # "knows" when score >= threshold


@dataclass
class Retrieved(Event):
    type: ClassVar[str] = "retrieved"
    query: str = ""
    passages: list[Passage] = field(default_factory=list)


@dataclass
class Relevance(Event):
    type: ClassVar[str] = "relevance"
    question: str = ""
    passage_id: str = ""
    relevant: bool = False
    score: float = 0.0  # probability of "relevant"
    judge: str = ""
    # With a ranked pool (the trained judge): 1-based rank from retrieval and by the judge's score.
    rank_before: int | None = None
    rank_after: int | None = None
    threshold: float | None = None


@dataclass
class Decomposed(Event):
    type: ClassVar[str] = "decomposed"
    question: str = ""
    sub_questions: list[str] = field(default_factory=list)  # empty: cannot decompose
    judge: str = ""


@dataclass
class SubQuestion(Event):
    """Opens the subtree of one sub-question; its steps name this step as ancestor."""

    type: ClassVar[str] = "sub_question"
    question: str = ""
    index: int = 0


@dataclass
class SubAnswer(Event):
    type: ClassVar[str] = "sub_answer"
    question: str = ""
    answer: str = ""
    resolved_by: str = ""


@dataclass
class Reading(Event):
    """The reader starts on an answer's prompt: these passages (ids; none: from its memory). Reading
    a prompt of several passages takes tens of seconds on a laptop before the first token, so the
    front ends say what it reads while it does."""

    type: ClassVar[str] = "reading"
    question: str = ""
    passages: list[str] = field(default_factory=list)


@dataclass
class Token(Event):
    """A piece of answer text as it streams from the reader."""

    type: ClassVar[str] = "token"
    text: str = ""


@dataclass
class Draft(Event):
    type: ClassVar[str] = "draft"
    question: str = ""
    text: str = ""
    basis: str = ""  # closed-book | passages | sub-answers | refinement | ...
    citations: list[str] = field(default_factory=list)  # passage ids
    avg_prob: float | None = None


@dataclass
class Note(Event):
    """Something the user should know about the run (a bound hit, a fallback taken)."""

    type: ClassVar[str] = "note"
    message: str = ""


DETAIL_BASE_FIELDS = ("step", "parent", "depth", "summary")


@dataclass
class Detail(Event):
    """A strategy-specific step (a pipeline stage, ReFeed, RQ-RAG, LLMQA): the typed subclasses
    in assistant/events/details.py, each with its `kind` and named fields. On the wire the fields travel
    in `data`, beside `kind` and a one-line `summary`."""

    type: ClassVar[str] = "detail"
    kind: ClassVar[str] = ""
    NESTED: ClassVar[dict[str, type]] = {}  # field -> dataclass of its items (or of itself)
    summary: str = ""

    @property
    def data(self) -> dict[str, Any]:
        """The subclass's own fields, as plain values (what `--json` writes under "data")."""
        return {name: value for name, value in dataclasses.asdict(self).items() if name not in DETAIL_BASE_FIELDS}

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "kind": self.kind, "step": self.step, "parent": self.parent,
                "depth": self.depth, "summary": self.summary, "data": self.data}

    @classmethod
    def from_data(cls, base: dict, data: dict) -> "Detail":
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}  # a recorded key since renamed: dropped
        for name, item in cls.NESTED.items():
            if isinstance(values.get(name), list):
                values[name] = [item(**x) for x in values[name]]
            elif isinstance(values.get(name), dict):
                values[name] = item(**values[name])
        return cls(**base, **values)


DETAIL_KINDS: dict[str, type[Detail]] = {}


def register_detail(cls: type[Detail]) -> type[Detail]:
    DETAIL_KINDS[cls.kind] = cls
    return cls


@dataclass
class Answer(Event):
    type: ClassVar[str] = "answer"
    question: str = ""
    text: str = ""
    citations: list[Passage] = field(default_factory=list)  # the passages the answer rests on, [1] first
    resolved_by: str = ""  # self-knowledge | passages | decomposition | closed-book | ...
    counts: dict = field(default_factory=dict)  # retrievals, sub_questions, reader_calls, tokens
    seconds: float = 0.0
    marked_text: str = ""  # the text with [n] markers after each sentence (assistant/grounding/citations.py)
    passages_read: list[str] = field(default_factory=list)  # ids of all passages the reader was given
    grounding: str = ""  # the grounding check's verdict (assistant/grounding/verdict.py); "" when not checked
    closest: list[Passage] = field(default_factory=list)  # shown when nothing supports the answer
    finish: str = ""  # why the answer's generation ended (stop, length, loop); "" when none ran


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (Started, SelfKnowledge, Retrieved, Relevance, Decomposed, SubQuestion, SubAnswer,
                Reading, Token, Draft, Note, Detail, Answer)
}

