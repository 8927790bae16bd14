"""The conversation's step trees: one node per turn (earlier turns folded, one Enter opens them), under it
one plain-language line per step (assistant/presentation/step_text.py), nested by the events' step/parent ids.

Each node's `data` is what the detail panel shows when the node is highlighted: a Passage
(full text and source), the Event itself, or a list of verdicts.
"""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from assistant.events.details import PipelineStage, QueryRefined
from assistant.events.core import (Answer, Decomposed, Detail, Draft, Event, Note, Passage, Reading, Relevance,
                              Retrieved, SelfKnowledge, Started, SubAnswer, SubQuestion, Token)
from assistant.presentation.step_text import StepNarrator, passage_name, relevance_summary, short



def label(*parts: tuple[str, str] | str) -> Text:
    """A label from plain strings and (text, style) pairs; never parsed as markup. Labels do not
    wrap and are not cut: the pane scrolls sideways, so a score at the end stays reachable."""
    out = Text(no_wrap=True)
    for part in parts:
        if isinstance(part, tuple):
            out.append(*part)
        else:
            out.append(part)
    return out


def passage_label(passage: Passage, verdict: Relevance | None = None) -> Text:
    parts: list = []
    if verdict is not None:
        parts.append(("✓ " if verdict.relevant else "✗ ", "green" if verdict.relevant else "red"))
    # the path whole and the text's start; scores are in the step's detail panel, not the tree
    parts += [(passage_name(passage), "bold"), ("  ", "dim"), (short(passage.text, 100), "dim")]
    return label(*parts)


class StepTree(Tree):
    """Builds itself from events; `add_event` is called on the UI thread for each one. The root is
    hidden: each turn of the conversation is a top-level node, `turn` the one being answered."""

    PLACEHOLDER = "Steps appear here"

    def __init__(self, **kwargs):
        super().__init__("conversation", **kwargs)
        self.show_root = False
        self.guide_depth = 3
        self.turns: list[TreeNode] = []  # one per question of the conversation, oldest first
        self.turn = self.root.add_leaf(label((self.PLACEHOLDER, "dim")))  # replaced by the first question
        self.root.expand()
        self._reset_state()

    def _reset_state(self) -> None:
        self.narrator = StepNarrator()
        self._scopes: dict[int, TreeNode] = {}  # step id -> node whose children are that step's steps
        self._passages: dict[tuple[int | None, str], TreeNode] = {}  # (scope, passage id) -> passage node
        self._relevance: dict[int | None, TreeNode] = {}  # scope -> its latest relevance group
        self._decomposed: dict[int | None, TreeNode] = {}  # scope -> its latest decomposition node
        self._open_retrievals: list[TreeNode] = []
        self.latest: TreeNode | None = None
        self._asked = ""

    def start(self, question: str) -> None:
        """A new turn below the earlier ones, which fold to their question and answer."""
        if not self.turns:
            self.clear()
        for earlier in self.turns:
            earlier.collapse()
        self._reset_state()
        self._asked = question  # the label keeps it as asked; a follow-up's rewrite is its own step
        self.turn = self.root.add(label(("? ", "bold magenta"), (question, "bold")), expand=True)
        self.turns.append(self.turn)

    def forget_turns(self) -> None:
        """An empty tree, for a new conversation."""
        self.clear()
        self.turns = []
        self.turn = self.root.add_leaf(label((self.PLACEHOLDER, "dim")))
        self._reset_state()

    def end_turn(self, answer: Answer | None) -> None:
        """The turn's label keeps its answer in short, for when it is folded."""
        if answer is not None and (answer.text or "").strip():
            self.turn.set_label(self.turn.label.copy().append_text(label(("  → ", "dim"), (short(answer.text, 80), "green"))))

    def _scope(self, event: Event) -> TreeNode:
        node = self._scopes.get(event.parent, self.turn) if event.parent is not None else self.turn
        if not node.is_expanded:  # a step that gets steps of its own shows them
            node.expand()
        return node

    def _add(self, parent: TreeNode, text: Text, data, expand: bool = True, leaf: bool = False) -> TreeNode:
        node = parent.add_leaf(text, data=data) if leaf else parent.add(text, data=data, expand=expand)
        self.latest = node
        return node

    def add_event(self, event: Event) -> TreeNode | None:
        """Add the event's node(s); returns the node added, None for events without one."""
        if isinstance(event, (Token, Reading)):  # the answer streams into its panel meanwhile
            return None
        if not isinstance(event, (Retrieved, Relevance)):
            self.fold_finished_retrievals()
        scope = self._scope(event)
        line = self.narrator.line(event)
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is None:  # an event type this version does not know: still shown
            return self._add(scope, label((line or event.type.replace("_", " "), "bold")), event, leaf=True)
        return handler(event, scope, line or "")

    def streams_answer(self, token: Token) -> bool:
        """Whether a token belongs to an answer of the question itself (a draft, a refinement),
        not to one of its sub-questions: only those stream into the answer panel."""
        node = self._scopes.get(token.parent) if token.parent is not None else None
        while node is not None:
            if isinstance(node.data, SubQuestion):
                return False
            node = node.parent
        return True

    def fold_finished_retrievals(self) -> None:
        """A retrieval stays open while its passages are judged, then folds so that the whole
        run fits on screen; its passages are one Enter (or F4) away."""
        for node in self._open_retrievals:
            node.collapse()
        self._open_retrievals.clear()

    # -- one method per event type ---------------------------------------------------------
    def _on_started(self, event: Started, scope: TreeNode, line: str) -> None:
        options = ", ".join(f"{k}={v}" for k, v in event.options.items())
        self.turn.set_label(label(("? ", "bold magenta"), (self._asked, "bold"),
                                  (f"  [{event.strategy}{': ' + options if options else ''}]", "dim")))
        self.turn.data = event
        return None

    def _on_self_knowledge(self, event: SelfKnowledge, scope: TreeNode, line: str) -> TreeNode:
        return self._add(scope, label((line, "green" if event.knows else "")), event, leaf=True)

    def _on_retrieved(self, event: Retrieved, scope: TreeNode, line: str) -> TreeNode:
        node = self._add(scope, label((line, "cyan")), event)
        for passage in event.passages:
            self._passages[(event.parent, passage.id)] = node.add_leaf(passage_label(passage), data=passage)
        self._open_retrievals.append(node)
        self._relevance.pop(event.parent, None)
        self.latest = node
        return node

    def _on_relevance(self, event: Relevance, scope: TreeNode, line: str) -> TreeNode:
        group = self._relevance.get(event.parent)
        if group is None:
            group = self._relevance[event.parent] = self._add(scope, label(""), [], expand=False)
        group.data.append(event)
        group.set_label(label((relevance_summary(group.data, numbers=False), "bold")))
        passage_node = self._passages.get((event.parent, event.passage_id))
        passage = passage_node.data if passage_node else Passage(id=event.passage_id, text="")
        if passage_node is not None:
            passage_node.set_label(passage_label(passage, event))
        group.add_leaf(label((line, "green" if event.relevant else "red")), data=passage)
        self.latest = group
        return group

    def _on_decomposed(self, event: Decomposed, scope: TreeNode, line: str) -> TreeNode:
        if not event.sub_questions:
            return self._add(scope, label((line, "yellow")), event, leaf=True)
        node = self._add(scope, label(line), event)
        self._decomposed[event.parent] = node
        return node

    def _on_sub_question(self, event: SubQuestion, scope: TreeNode, line: str) -> TreeNode:
        parent = self._decomposed.get(event.parent, scope)
        node = self._add(parent, label((line, "bold magenta")), event)
        self._scopes[event.step] = node
        return node

    def _on_sub_answer(self, event: SubAnswer, scope: TreeNode, line: str) -> TreeNode:
        node = self._add(scope, label((line, "green")), event, leaf=True)
        if scope is not self.turn and isinstance(scope.data, SubQuestion):
            sub = scope.data
            scope.set_label(label((f"Sub-question {sub.index + 1}: ", "bold magenta"), sub.question,
                                  (" → ", "dim"), (short(event.answer, 60), "green")))
        return node

    def _on_draft(self, event: Draft, scope: TreeNode, line: str) -> TreeNode:
        return self._add(scope, label(line), event, leaf=True)

    def _on_note(self, event: Note, scope: TreeNode, line: str) -> TreeNode:
        return self._add(scope, label((line, "yellow")), event, leaf=True)

    def _on_detail(self, event: Detail, scope: TreeNode, line: str) -> TreeNode:
        """Strategy steps (ReFeed, RQ-RAG, LLMQA): a line each; the passages they name are their
        children, to open. A stage or a query refinement is the parent of the steps after it."""
        stage = isinstance(event, PipelineStage)  # only groups the steps under it
        passages = self._passages_in(event.data)
        node = self._add(scope, label((line, "bold magenta" if stage else "")), event,
                         expand=stage, leaf=not passages and not stage and not isinstance(event, QueryRefined))
        for passage in passages:
            node.add_leaf(passage_label(passage), data=passage)
        self._scopes[event.step] = node
        self.latest = node
        return node

    def _passages_in(self, data: dict) -> list[Passage]:
        """The passages a strategy step names (by id, or as dicts with their fields)."""
        found: dict[str, Passage] = {}
        for key in ("passages", "kept", "feedback"):
            for value in data.get(key, []) if isinstance(data.get(key), list) else []:
                passage = self._passage_of(value)
                if passage is not None:
                    found.setdefault(passage.id, passage)
        return list(found.values())

    def _passage_of(self, value) -> Passage | None:
        known = self.narrator.passages
        if isinstance(value, str):
            return known.get(value)
        if not isinstance(value, dict) or not ("id" in value or "title" in value):
            return None
        seen = known.get(str(value.get("id", "")))
        if seen is not None and not value.get("text"):
            return Passage(**{**vars(seen), **{k: value[k] for k in ("score",) if k in value}})
        if "text" not in value:
            return None
        fields = {k: value[k] for k in Passage.__dataclass_fields__ if k in value}
        return Passage(**{"id": str(value.get("id", "")), **fields})

    def _on_answer(self, event: Answer, scope: TreeNode, line: str) -> TreeNode:
        node = self._add(scope, label((line, "bold green")), event)
        for i, passage in enumerate(event.citations, 1):
            node.add_leaf(label((f"[{i}] ", "bold cyan"), passage_name(passage)), data=passage)
        self.latest = node
        return node
