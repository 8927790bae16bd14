"""The answer panel (streaming text, numbered citations) and the detail panel (a passage's
full text and source, or everything about one step)."""
from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from assistant.events import Answer, Detail, Event, Passage, Relevance, Retrieved

HINT = ("Highlight a step or a passage in the step tree (Tab, then ↑↓, or click) to see it here. "
        "Keys 1-9 (outside the question box) open the answer's sources.")


def describe_passage(passage: Passage) -> Text:
    out = Text()
    out.append(passage.title or passage.citation_label(), "bold")
    out.append("\n")
    where = passage.path or passage.title or passage.id
    out.append(f"{where}", "cyan")
    if passage.page:
        out.append(f", page {passage.page}", "cyan")
    if passage.section:
        out.append(f"  § {passage.section}", "dim")
    out.append("\n")
    meta = [f"id {passage.id}"]
    if passage.score:
        meta.append(f"score {passage.score:.4f}")
    if passage.source:
        meta.append(f"source {passage.source}")
    out.append("  ·  ".join(meta), "dim")
    out.append("\n\n")
    out.append(passage.text or "(the passage text is not in this step)")
    return out


def citation_label(number: int, passage: Passage) -> Text:
    """One line: the number, where it is from and the passage's start (several passages often
    come from one file)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"[{number}] ", "bold cyan")
    out.append(passage.citation_label())
    out.append(f"  {' '.join(passage.text.split())[:120]}", "dim")
    return out


def _fields(event: Event, skip: tuple[str, ...] = ()) -> Text:
    out = Text()
    for key, value in event.to_dict().items():
        if key in ("type", "step", "parent", "depth", *skip) or value in ("", None, [], {}):
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
        out.append(f"{key}: ", "bold")
        out.append(f"{shown}\n")
    return out


def describe(data) -> Text:
    """What the detail panel shows for a tree node's data."""
    if isinstance(data, Passage):
        return describe_passage(data)
    if isinstance(data, list) and data and all(isinstance(v, Relevance) for v in data):
        out = Text("relevance verdicts\n\n", "bold")
        for v in data:
            out.append("✓ " if v.relevant else "✗ ", "green" if v.relevant else "red")
            out.append(f"{v.passage_id}  p={v.score:.2f}\n")
        return out
    if isinstance(data, Retrieved):
        out = Text("retrieval\n", "bold")
        out.append(f"query: {data.query}\n\n")
        for i, p in enumerate(data.passages, 1):
            out.append(f"{i}. {p.score:.4f} ", "dim")
            out.append(p.citation_label(), "bold")
            out.append(f"\n   {' '.join(p.text.split())[:200]}\n")
        return out
    if isinstance(data, Answer):
        out = Text("final answer\n\n", "bold")
        out.append(f"{data.text}\n\n", "bold green")
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data.counts.items())
        out.append(f"resolved by {data.resolved_by or '-'}\n{counts}\n", "dim")
        return out
    if isinstance(data, Detail):
        out = Text(f"{data.kind}\n", "bold")
        out.append(f"{data.summary}\n\n")
        for key, value in data.data.items():
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
            out.append(f"{key}: ", "bold")
            out.append(f"{shown}\n")
        return out
    if isinstance(data, Event):
        out = Text(f"{data.type.replace('_', ' ')}\n\n", "bold")
        out.append_text(_fields(data))
        return out
    if data is None:
        return Text(HINT, "dim")
    return Text(json.dumps(data, ensure_ascii=False, indent=1, default=str))


class DetailPanel(VerticalScroll):
    """Full text of whatever is selected in the tree or the citation list."""

    def compose(self) -> ComposeResult:
        yield Static(Text(HINT, "dim"), id="detail-text")

    def show(self, data) -> None:
        self.query_one("#detail-text", Static).update(describe(data))
        self.scroll_home(animate=False)


class AnswerPanel(VerticalScroll, can_focus=False):
    """The answer as it streams, then the final text with its numbered sources."""

    class CitationChosen(Message):
        def __init__(self, passage: Passage):
            super().__init__()
            self.passage = passage

    def compose(self) -> ComposeResult:
        yield Static(Text("No question yet. Type one above and press Enter.", "dim"), id="answer-text")
        yield OptionList(id="citations")
        yield Static("", id="answer-stats")

    def on_mount(self) -> None:
        self.query_one("#citations", OptionList).display = False
        self._streamed = ""
        self._stream_step: int | None = None
        self._citations: list[Passage] = []

    @property
    def text_widget(self) -> Static:
        return self.query_one("#answer-text", Static)

    def reset(self, message: str = "") -> None:
        self._streamed, self._stream_step, self._citations = "", None, []
        citations = self.query_one("#citations", OptionList)
        citations.clear_options()
        citations.display = False
        self.text_widget.update(Text(message, "dim"))
        self.query_one("#answer-stats", Static).update("")

    def add_token(self, step: int, text: str) -> None:
        if step != self._stream_step:  # a new generation (e.g. a refinement) replaces the last one
            self._stream_step, self._streamed = step, ""
        self._streamed += text
        self.text_widget.update(Text(self._streamed.lstrip()))
        self.scroll_end(animate=False)

    def show_answer(self, answer: Answer) -> None:
        self.text_widget.update(Text(answer.text or "(no answer)", "bold"))
        c = answer.counts
        self.query_one("#answer-stats", Static).update(Text(
            f"resolved by {answer.resolved_by or '-'} · {c.get('retrievals', 0)} retrievals · "
            f"{c.get('sub_questions', 0)} sub-questions · {c.get('reader_calls', 0)} reader calls · "
            f"{answer.seconds:.1f}s", "dim"))
        self._citations = list(answer.citations)
        citations = self.query_one("#citations", OptionList)
        citations.clear_options()
        for i, passage in enumerate(self._citations, 1):
            citations.add_option(Option(citation_label(i, passage), id=str(i)))
        citations.display = bool(self._citations)
        self.scroll_home(animate=False)

    def show_error(self, message: str, hint: str, kind: str = "error") -> None:
        out = Text(f"{kind}: ", "bold red" if kind == "error" else "bold yellow")
        out.append(message)
        if hint:
            out.append(f"\n\n{hint}", "yellow")
        self.text_widget.update(out)

    def citation(self, number: int) -> Passage | None:
        return self._citations[number - 1] if 0 < number <= len(self._citations) else None

    def on_descendant_focus(self, event) -> None:
        citations = self.query_one("#citations", OptionList)
        if event.widget is citations and citations.highlighted is None and citations.option_count:
            citations.highlighted = 0  # Tab onto the list opens the first source

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        passage = self.citation(int(event.option.id))
        if passage:
            self.post_message(self.CitationChosen(passage))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        passage = self.citation(int(event.option.id))
        if passage:
            self.post_message(self.CitationChosen(passage))
