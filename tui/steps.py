"""The live step tree: one node per step event, nested by the events' step/parent ids.

Each node's `data` is what the detail panel shows when the node is highlighted: a Passage
(full text and source) or the Event itself.
"""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from assistant.events import (Answer, Decomposed, Detail, Draft, Event, Note, Passage, Relevance, Retrieved,
                              SelfKnowledge, Started, SubAnswer, SubQuestion, Token)


def short(text: str, width: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def label(*parts: tuple[str, str] | str) -> Text:
    """A label from plain strings and (text, style) pairs; never parsed as markup."""
    out = Text(no_wrap=True, overflow="ellipsis")
    for part in parts:
        if isinstance(part, tuple):
            out.append(*part)
        else:
            out.append(part)
    return out


def passage_label(passage: Passage, verdict: Relevance | None = None) -> Text:
    parts: list = [(f"{passage.score:.3f} ", "dim"), (short(passage.citation_label(), 40), "bold"), " "]
    if verdict is not None:
        parts.append(("✓ " if verdict.relevant else "✗ ", "green" if verdict.relevant else "red"))
    parts.append((short(passage.text, 120), "dim"))
    return label(*parts)


STAGE_KINDS = {"pipeline.stage"}  # detail steps that only group the steps under them


def _probability(p: float | None) -> str:
    return "" if p is None else f" p={p:.2f}"


class StepTree(Tree):
    """Builds itself from events; `add_event` is called on the UI thread for each one."""

    def __init__(self, **kwargs):
        super().__init__(label(("Steps appear here", "dim")), **kwargs)
        self.guide_depth = 3
        self._reset_state()

    def _reset_state(self) -> None:
        self._scopes: dict[int, TreeNode] = {}  # step id -> node whose children are that step's steps
        self._passages: dict[tuple[int | None, str], TreeNode] = {}  # (scope, passage id) -> passage node
        self._relevance: dict[int | None, TreeNode] = {}  # scope -> its latest relevance group
        self._decomposed: dict[int | None, TreeNode] = {}  # scope -> its latest decomposition node
        self._known: dict[str, Passage] = {}  # every passage retrieved in this run, by id
        self._open_retrievals: list[TreeNode] = []
        self.latest: TreeNode | None = None

    def start(self, question: str) -> None:
        self.clear()
        self._reset_state()
        self.root.set_label(label(("? ", "bold magenta"), (question, "bold")))
        self.root.data = None
        self.root.expand()

    def _scope(self, event: Event) -> TreeNode:
        node = self._scopes.get(event.parent, self.root) if event.parent is not None else self.root
        if not node.is_expanded:  # a step that gets steps of its own shows them
            node.expand()
        return node

    def _add(self, parent: TreeNode, text: Text, data, expand: bool = True, leaf: bool = False) -> TreeNode:
        node = parent.add_leaf(text, data=data) if leaf else parent.add(text, data=data, expand=expand)
        self.latest = node
        return node

    def add_event(self, event: Event) -> TreeNode | None:
        """Add the event's node(s); returns the node added, None for events without one."""
        if isinstance(event, Token):
            return None
        if not isinstance(event, (Retrieved, Relevance)):
            self._fold_finished_retrievals()
        scope = self._scope(event)
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is None:  # an event type this version does not know: still shown
            return self._add(scope, label((event.type, "bold"), f" step {event.step}"), event, leaf=True)
        return handler(event, scope)

    def streams_answer(self, token: Token) -> bool:
        """Whether a token belongs to an answer of the question itself (a draft, a refinement),
        not to one of its sub-questions: only those stream into the answer panel."""
        node = self._scopes.get(token.parent) if token.parent is not None else None
        while node is not None:
            if isinstance(node.data, SubQuestion):
                return False
            node = node.parent
        return True

    def _fold_finished_retrievals(self) -> None:
        """A retrieval stays open while its passages are judged, then folds so that the whole
        run fits on screen; its passages are one Enter (or F4) away."""
        for node in self._open_retrievals:
            node.collapse()
        self._open_retrievals.clear()

    # -- one method per event type ---------------------------------------------------------
    def _on_started(self, event: Started, scope: TreeNode) -> None:
        options = ", ".join(f"{k}={v}" for k, v in event.options.items())
        self.root.set_label(label(("? ", "bold magenta"), (event.question, "bold"),
                                  (f"  [{event.strategy}{': ' + options if options else ''}]", "dim")))
        self.root.data = event
        return None

    def _on_self_knowledge(self, event: SelfKnowledge, scope: TreeNode) -> TreeNode:
        verdict = ("knows it", "green") if event.knows else ("does not know it", "yellow")
        # the judge's name is in the detail panel: labels stay short enough for 80 columns
        return self._add(scope, label(("self-knowledge ", "bold"), verdict, (_probability(event.score), "dim")),
                         event, leaf=True)

    def _on_retrieved(self, event: Retrieved, scope: TreeNode) -> TreeNode:
        node = self._add(scope, label(("retrieve ", "bold"), (f"“{short(event.query, 60)}”", "cyan"),
                                      (f" → {len(event.passages)} passages", "dim")), event)
        for passage in event.passages:
            self._passages[(event.parent, passage.id)] = node.add_leaf(passage_label(passage), data=passage)
            self._known[passage.id] = passage
        self._open_retrievals.append(node)
        self._relevance.pop(event.parent, None)
        self.latest = node
        return node

    def _on_relevance(self, event: Relevance, scope: TreeNode) -> TreeNode:
        group = self._relevance.get(event.parent)
        if group is None:
            group = self._relevance[event.parent] = self._add(scope, label(("relevance", "bold")), event,
                                                                expand=False)
            group.data = []  # the verdicts, for the group's detail view
        group.data.append(event)
        kept = sum(v.relevant for v in group.data)
        group.set_label(label(("relevance ", "bold"), (f"{kept} of {len(group.data)} relevant", "dim")))
        passage_node = self._passages.get((event.parent, event.passage_id))
        passage = passage_node.data if passage_node else Passage(id=event.passage_id, text="")
        if passage_node is not None:
            passage_node.set_label(passage_label(passage, event))
        mark = ("✓ relevant", "green") if event.relevant else ("✗ irrelevant", "red")
        rank = (f" #{event.rank_after} (was #{event.rank_before})" if event.rank_after is not None else "")
        group.add_leaf(label(mark, (_probability(event.score) + rank + " ", "dim"),
                             short(passage.citation_label(), 50)), data=passage)
        self.latest = group
        return group

    def _on_decomposed(self, event: Decomposed, scope: TreeNode) -> TreeNode:
        if not event.sub_questions:
            text = label(("decompose ", "bold"), ("cannot decompose", "yellow"))
            return self._add(scope, text, event, leaf=True)
        node = self._add(scope, label(("decompose ", "bold"),
                                      (f"→ {len(event.sub_questions)} sub-questions", "dim")), event)
        self._decomposed[event.parent] = node
        return node

    def _on_sub_question(self, event: SubQuestion, scope: TreeNode) -> TreeNode:
        parent = self._decomposed.get(event.parent, scope)
        node = self._add(parent, label((f"Q{event.index + 1} ", "bold magenta"), event.question), event)
        self._scopes[event.step] = node
        return node

    def _on_sub_answer(self, event: SubAnswer, scope: TreeNode) -> TreeNode:
        node = self._add(scope, label(("sub-answer ", "bold"), (event.answer, "bold green"),
                                      (f" ({event.resolved_by})", "dim")), event, leaf=True)
        if scope is not self.root and isinstance(scope.data, SubQuestion):
            sub = scope.data
            scope.set_label(label((f"Q{sub.index + 1} ", "bold magenta"), sub.question,
                                  (" → ", "dim"), (short(event.answer, 60), "green")))
        return node

    def _on_draft(self, event: Draft, scope: TreeNode) -> TreeNode:
        return self._add(scope, label((f"draft ({event.basis}) ", "bold"), short(event.text, 100),
                                      (_probability(event.avg_prob), "dim")), event, leaf=True)

    def _on_note(self, event: Note, scope: TreeNode) -> TreeNode:
        return self._add(scope, label(("note ", "bold yellow"), event.message), event, leaf=True)

    def _on_detail(self, event: Detail, scope: TreeNode) -> TreeNode:
        """Steps of strategies this tree has no special view for: kind, summary and data.

        A detail step can be the parent of later steps (a pipeline stage, an RQ-RAG query
        refinement): those nest under it. A stage's data is only shown in the detail panel.
        """
        stage = event.kind in STAGE_KINDS
        text = label((short(event.summary, 100), "bold magenta")) if stage else \
            label((f"{event.kind} ", "bold"), short(event.summary, 100))
        node = self._add(scope, text, event, expand=stage, leaf=not event.data and not stage)
        if not stage:
            for key, value in event.data.items():
                self._add_value(node, key, value)
        self._scopes[event.step] = node
        self.latest = node
        return node

    def _add_value(self, parent: TreeNode, key: str, value) -> None:
        known = self._passage_of(value)
        if known is not None:
            parent.add_leaf(label((f"{key} ", "dim"), passage_label(known)), data=known)
        elif isinstance(value, (list, tuple)) and value and all(self._passage_of(v) for v in value):
            node = parent.add(label((f"{key} ", "bold"), (f"{len(value)} passages", "dim")), data=value)
            for i, item in enumerate(value, 1):
                self._add_value(node, str(i), item)
        elif isinstance(value, (list, tuple)) and value and not all(isinstance(v, (str, int, float)) for v in value):
            node = parent.add(label((f"{key} ", "bold"), (f"{len(value)} items", "dim")), data=value)
            for i, item in enumerate(value, 1):
                self._add_value(node, str(i), item)
        elif isinstance(value, dict):
            node = parent.add(label((f"{key}", "bold")), data=value)
            for k, v in value.items():
                self._add_value(node, k, v)
        else:
            shown = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            parent.add_leaf(label((f"{key}: ", "dim"), short(shown, 100)), data={key: value})

    def _passage_of(self, value) -> Passage | None:
        """The passage a detail value stands for: a passage id seen in this run, or a dict with
        the passage's fields (its full text, when the event carries it, else the retrieved one)."""
        if isinstance(value, str):
            return self._known.get(value)
        if not isinstance(value, dict) or not ("id" in value or "title" in value):
            return None
        seen = self._known.get(str(value.get("id", "")))
        if seen is not None and not value.get("text"):
            return Passage(**{**vars(seen), **{k: value[k] for k in ("score",) if k in value}})
        if "text" not in value:
            return None
        fields = {k: value[k] for k in Passage.__dataclass_fields__ if k in value}
        return Passage(**{"id": str(value.get("id", "")), **fields})

    def _on_answer(self, event: Answer, scope: TreeNode) -> TreeNode:
        node = self._add(scope, label(("answer ", "bold green"), (event.text or "(no answer)", "bold"),
                                      (f" ({event.resolved_by})", "dim")), event)
        for i, passage in enumerate(event.citations, 1):
            node.add_leaf(label((f"[{i}] ", "bold cyan"), passage.citation_label()), data=passage)
        self.latest = node
        return node
