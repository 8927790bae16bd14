"""The answer panel (streaming text, numbered citations) and the detail panel (a passage's
full text and source, or everything about one step)."""
from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from assistant.events.details import RefeedDecision
from assistant.events.core import Answer, Detail, Event, Passage, Relevance, Retrieved
from assistant.answering.quoting import shown_label
from assistant.presentation.step_text import no_source, passage_name, relevance_summary, resolved_phrase, score_vs

MARKER = re.compile(r"(\[\d+\])")
HINT = ("Highlight a step or a passage in the step tree (Tab, then ↑↓, or click) to see it here. "
        "Keys 1-9 (outside the question box) open the answer's sources.")


def describe_passage(passage: Passage, answer: str = "") -> Text:
    """The passage in full, the sentence that best supports `answer` highlighted."""
    from assistant.presentation.source_files import file_of

    from .source_view import highlighted

    out = Text()
    out.append(shown_label(passage.title or passage.citation_label()), "bold")  # bounded: titles may be orders
    out.append("\n")
    where = passage.path or passage.title or passage.id
    out.append(f"{where}", "cyan")
    if passage.page:
        out.append(f", page {passage.page}", "cyan")
    if passage.section:
        out.append(f"  § {passage.section}", "dim")
    out.append("\n")
    meta = [f"id {passage.id}"]
    if passage.source:
        meta.append(f"source {passage.source}")
    out.append("  ·  ".join(meta), "dim")
    if file_of(passage) is not None:
        out.append("\no opens the file", "dim")
    out.append("\n\n")
    out.append(highlighted(passage.text, answer) if passage.text else Text("(the passage text is not in this step)"))
    return out


def citation_label(number: int, passage: Passage) -> Text:
    """One line: the number, where it is from and the passage's start (several passages often
    come from one file)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"[{number}] ", "bold cyan")
    out.append(shown_label(passage.citation_label()))
    out.append(f"  {' '.join(passage.text.split())[:120]}", "dim")
    return out


def _value(value, indent: str = "") -> str:
    """A data value as readable lines: lists as bullets, dicts as "key: value", no JSON."""
    if isinstance(value, dict):
        return "".join(f"\n{indent}  {k.replace('_', ' ')}: {_value(v, indent + '  ')}" for k, v in value.items()
                       if v not in ("", None, [], {}))
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (str, int, float)) for v in value):
            return ", ".join(map(str, value))
        return "".join(f"\n{indent}  • {_value(v, indent + '  ').lstrip()}" for v in value)
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _verdicts(verdicts: list[Relevance], names: dict[str, Passage]) -> Text:
    out = Text(relevance_summary(verdicts) + "\n\n", "bold")
    for v in verdicts:
        out.append("✓ " if v.relevant else "✗ ", "green" if v.relevant else "red")
        known = names.get(v.passage_id)
        out.append(passage_name(known) if known else v.passage_id)
        out.append(f"  {score_vs(v.score, v.threshold)}\n", "dim")
    return out


def _decision(decision: RefeedDecision) -> Text:
    out = Text("ReFeed's check of the draft\n\n", "bold")
    for item, name in ((decision.draft, "Draft"), (decision.refined, "Revision")):
        out.append(f"{name}: ", "bold")
        out.append(item.text)
        support = f", judge support {item.support:.2f}" if item.support is not None else ""
        out.append(f"  (confidence {item.avg_prob:.2f}{support})\n", "dim")
    kept = "the revision" if decision.kept == "refined" else "the draft"
    out.append(f"\nKept {kept}", "bold")
    if decision.rule == "support":
        out.append(" (the one the judge backs more: its best-scored passage holding the answer; ties by "
                   "the reader's average token probability)")
    else:
        out.append(" (the likelier answer by the reader's average token probability)" if decision.ensemble
                   else " (the comparison is off: the revision always wins)")
    return out


def describe(data, names: dict[str, Passage] | None = None, answer: str = "") -> Text:
    """What the detail panel shows for a tree node's data; `names` are the run's passages by id,
    `answer` the answer shown (its supporting sentence is highlighted in a passage)."""
    names = names or {}
    if isinstance(data, Passage):
        return describe_passage(data, answer)
    if isinstance(data, list) and data and all(isinstance(v, Relevance) for v in data):
        return _verdicts(data, names)
    if isinstance(data, Retrieved):
        out = Text(f"Looked up {len(data.passages)} passages\n", "bold")
        out.append(f"for: {data.query}\n\n")
        for i, p in enumerate(data.passages, 1):
            out.append(f"{i}. ", "dim")
            out.append(passage_name(p), "bold")
            out.append("\n")
            out.append(f"   {' '.join(p.text.split())[:200]}\n")
        return out
    if isinstance(data, Answer):
        out = Text("Answer\n\n", "bold")
        out.append(f"{data.marked_text or data.text}\n\n", "bold green")
        for i, p in enumerate(data.citations, 1):
            out.append(f"[{i}] ", "bold cyan")
            out.append(f"{shown_label(p.citation_label())}\n")
        read = len(data.passages_read)
        if read:
            out.append(f"{len(data.citations)} of the {read} passages the reader was given hold the answer\n", "dim")
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data.counts.items())
        out.append(f"\n{resolved_phrase(data.resolved_by)}\n{counts}\n", "dim")
        return out
    if isinstance(data, RefeedDecision):
        return _decision(data)
    if isinstance(data, Detail):
        out = Text(f"{data.summary}\n", "bold")
        for key, value in data.data.items():
            if value in ("", None, [], {}):
                continue
            out.append(f"\n{key.replace('_', ' ')}: ", "bold")
            out.append(_value(value))
        return out
    if isinstance(data, Event):
        out = Text(f"{data.type.replace('_', ' ')}\n", "bold")
        for key, value in data.to_dict().items():
            if key in ("type", "step", "parent", "depth") or value in ("", None, [], {}):
                continue
            out.append(f"\n{key.replace('_', ' ')}: ", "bold")
            out.append(_value(value))
        return out
    if data is None:
        return Text(HINT, "dim")
    return Text(_value(data).strip())


class DetailPanel(VerticalScroll):
    """Full text of whatever is selected in the tree or the citation list."""

    def compose(self) -> ComposeResult:
        yield Static(Text(HINT, "dim"), id="detail-text")

    answer_text = ""  # the answer on screen: a passage shown here highlights what supports it
    shown = None  # what is shown: `o` opens a passage's file

    def show(self, data, names: dict[str, Passage] | None = None) -> None:
        self.shown = data
        self.query_one("#detail-text", Static).update(describe(data, names, self.answer_text))
        self.scroll_home(animate=False)


def answer_as_text(answer: Answer) -> str:
    """What Ctrl+Y copies: the answer with its markers, then the numbered sources."""
    lines = [answer.marked_text or answer.text]
    lines += [f"[{i}] {shown_label(p.citation_label())}" for i, p in enumerate(answer.citations, 1)]
    return "\n".join(lines)


def marked(text: str) -> Text:
    """The answer with its [n] markers set apart, so they read as references to the list below."""
    out = Text()
    for piece in MARKER.split(text):
        out.append(piece, "bold cyan" if MARKER.fullmatch(piece) else "bold")
    return out


SAVED = "saved-thread"  # Answer.resolved_by of a turn reopened from its thread file


def answer_stats(answer: Answer) -> str:
    """Short enough for a 60-column answer pane: what it cost, most telling first."""
    if answer.resolved_by == SAVED:
        return "from the saved conversation (its passages' text is not kept; ask again to see them)"
    c = answer.counts
    parts = [f"{answer.seconds:.1f}s", f"{c.get('reader_calls', 0)} reader calls",
             f"{c.get('retrievals', 0)} look-ups"]
    if c.get("sub_questions"):
        parts.append(f"{c['sub_questions']} sub-questions")
    return " · ".join(parts)


class AnswerPanel(VerticalScroll):
    """Focusable, so the keyboard scrolls a long answer."""

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
        self.answer: Answer | None = None

    @property
    def text_widget(self) -> Static:
        return self.query_one("#answer-text", Static)

    def reset(self, message: str = "") -> None:
        self._streamed, self._stream_step, self._citations = "", None, []
        self.answer = None
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
        self.answer = answer
        shown = marked(answer.marked_text or answer.text or "(no answer)")
        if not answer.citations and answer.passages_read:
            shown.append(f"\n\n{no_source(answer)}", "dim yellow")
        self.text_widget.update(shown)
        self.query_one("#answer-stats", Static).update(Text(answer_stats(answer), "dim"))
        self._citations = list(answer.citations)
        citations = self.query_one("#citations", OptionList)
        citations.clear_options()
        for i, passage in enumerate(self._citations, 1):
            citations.add_option(Option(citation_label(i, passage), id=str(i)))
        citations.display = bool(self._citations)
        self.scroll_home(animate=False)

    def show_first_run(self, index_path: str) -> None:
        out = Text("Your index is empty. ", "bold yellow")
        out.append("Type the path of a folder of your documents above (e.g. examples/docs/) and press "
                   "Enter, or press F3 for the index screen. Then ask here.\n\n")
        out.append("Without an index the reader answers from memory alone: F2, strategy direct. "
                   "F1 lists every key.", "dim")
        if index_path:
            out.append(f"\n\nIndex folder: {index_path}", "dim")
        self.text_widget.update(out)

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
