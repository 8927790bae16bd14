"""The full-screen app: ask, watch the steps live, open passages, switch settings, manage the index.

A question runs in a worker thread over `Backend.ask` (the runner's event generator); each
event is posted to the UI thread. Stopping = no longer iterating, checked between events.
"""
from __future__ import annotations

import threading
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Header, Input, Static, Tree

from models.errors import AssistantError, ModelError

from assistant.events import Answer, Event, Token

from .backend import Backend
from .index_screen import IndexScreen
from .panels import AnswerPanel, DetailPanel
from .settings_screen import Choice, SettingsScreen
from .steps import StepTree

DEFAULT_SPEC = "ra-isf"


def hint_for(message: str, exc: Exception | None = None) -> str:
    """What the user can do about an error, in this app's keys."""
    if "no index" in message or "needs an index" in message or "embedding model" in message:
        return "Press F3 to open the index screen and add a folder of documents."
    if isinstance(exc, ModelError) or "model" in message:
        return "Press F2 to choose another reader (a .gguf file) or judge."
    if "strategy" in message or "option" in message:
        return "Press F2 to pick a strategy and its options."
    return ""


class QuestionInput(Input):
    """The question line, with ↑/↓ through the questions asked before."""

    BINDINGS = [Binding("up", "history(-1)", "Previous", show=False),
                Binding("down", "history(1)", "Next", show=False)]

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.history: list[str] = []
        self._position = 0

    def remember(self, question: str) -> None:
        if question and (not self.history or self.history[-1] != question):
            self.history.append(question)
        self._position = len(self.history)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._position = max(0, min(len(self.history), self._position + step))
        self.value = self.history[self._position] if self._position < len(self.history) else ""
        self.cursor_position = len(self.value)


class AssistantApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "Offline assistant"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("q", "quit", "Quit", show=False),
        Binding("f2", "settings", "Settings"),
        Binding("f3", "index", "Index"),
        Binding("escape", "stop", "Stop"),
        Binding("f4", "toggle_steps", "Expand/collapse"),
        Binding("ctrl+l", "focus_question", "Question", show=False),
        Binding("slash", "focus_question", "Question", show=False),
    ]

    class StepEvent(Message):
        def __init__(self, event: Event):
            super().__init__()
            self.event = event

    class AskEnded(Message):
        def __init__(self, error: str = "", hint: str = "", stopped: bool = False):
            super().__init__()
            self.error, self.hint, self.stopped = error, hint, stopped

    def __init__(self, backend: Backend | None = None, spec: str = DEFAULT_SPEC):
        super().__init__()
        self.backend = backend or Backend()
        self.spec = spec
        self.settings = None  # loaded on mount, where a bad config can be shown
        self._stop_ask: threading.Event | None = None
        self._index_screen: IndexScreen | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield QuestionInput(placeholder="Ask a question and press Enter (↑↓ history)", id="question")
        with Horizontal(id="main"):
            yield StepTree(id="steps")
            with Vertical(id="side"):
                yield AnswerPanel(id="answer")
                yield DetailPanel(id="detail")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#steps").border_title = "Steps"
        self.query_one("#answer").border_title = "Answer"
        self.query_one("#detail").border_title = "Detail"
        if self.is_headless:  # a still cursor keeps snapshots deterministic
            self.query_one(QuestionInput).cursor_blink = False
        try:
            self.settings = self.backend.initial_settings()
        except AssistantError as exc:
            from models.config import Settings

            self.settings = Settings()
            self.query_one(AnswerPanel).show_error(str(exc), "Fix the config file or environment, or "
                                                   "press F2 to choose settings for this session.")
        self.update_status("ready")
        self.query_one(QuestionInput).focus()

    # -- status line -----------------------------------------------------------------------
    def update_status(self, state: str) -> None:
        s = self.settings
        reader = Path(s.reader).name if s.reader else "bundled"
        text = Text.assemble((f" {state} ", "reverse"), " ", ("strategy ", "dim"), self.spec,
                             ("  k ", "dim"), str(s.k), ("  depth ", "dim"), str(s.depth),
                             ("  judge ", "dim"), s.judge, ("  reader ", "dim"), reader)
        self.query_one("#status", Static).update(text)

    @property
    def asking(self) -> bool:
        return self._stop_ask is not None

    # -- asking ----------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "question":
            return
        question = event.value.strip()
        if not question:
            return
        if self.asking:
            self.notify("Still answering the last question; Esc stops it.", severity="warning")
            return
        question_input = self.query_one(QuestionInput)
        question_input.remember(question)
        question_input.value = ""
        self.ask(question)

    def ask(self, question: str) -> None:
        self.query_one(StepTree).start(question)
        self.query_one(AnswerPanel).reset("Working… (the first question also loads the models)")
        self.query_one(DetailPanel).show(None)
        self._stop_ask = threading.Event()
        self.update_status("answering · Esc stops")
        self.ask_worker(question, self.spec, self.settings, self._stop_ask)

    @work(thread=True, group="ask", exit_on_error=False)
    def ask_worker(self, question: str, spec: str, settings, stop: threading.Event) -> None:
        events = self.backend.ask(question, spec, settings)
        try:
            for event in events:
                if stop.is_set():
                    self.post_message(self.AskEnded(stopped=True))
                    return
                self.post_message(self.StepEvent(event))
            self.post_message(self.AskEnded())
        except AssistantError as exc:
            self.post_message(self.AskEnded(str(exc), hint_for(str(exc), exc)))
        except Exception as exc:  # never a crash: show it, keep the app usable
            self.post_message(self.AskEnded(f"unexpected {type(exc).__name__}: {exc}",
                                            "This is a bug; the app keeps running."))
        finally:
            events.close()  # runs the strategy's clean-up on this thread

    def on_assistant_app_step_event(self, message: StepEvent) -> None:
        event = message.event
        if self._stop_ask is None or self._stop_ask.is_set():
            return  # events still queued from a stopped run
        if isinstance(event, Token):
            if event.parent is None:
                self.query_one(AnswerPanel).add_token(event.step, event.text)
            return
        tree = self.query_one(StepTree)
        node = tree.add_event(event)
        if node is not None and not tree.has_focus:  # follow the run unless the user is browsing
            self.call_after_refresh(tree.scroll_to_node, node, animate=False)
        if isinstance(event, Answer):
            self.query_one(AnswerPanel).show_answer(event)

    def on_assistant_app_ask_ended(self, message: AskEnded) -> None:
        self._stop_ask = None
        panel = self.query_one(AnswerPanel)
        if message.error:
            panel.show_error(message.error, message.hint)
            self.update_status("error")
        elif message.stopped:
            panel.show_error("stopped", "Ask again, or change settings with F2.")
            self.update_status("stopped")
        else:
            self.update_status("ready")

    # -- selecting things ------------------------------------------------------------------
    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        self.query_one(DetailPanel).show(event.node.data)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        self.query_one(DetailPanel).show(event.node.data)

    def on_answer_panel_citation_chosen(self, message: AnswerPanel.CitationChosen) -> None:
        self.query_one(DetailPanel).show(message.passage)

    # -- actions ---------------------------------------------------------------------------
    def action_stop(self) -> None:
        if self._stop_ask is not None:
            self._stop_ask.set()
            self.on_assistant_app_ask_ended(self.AskEnded(stopped=True))

    def action_focus_question(self) -> None:
        self.query_one(QuestionInput).focus()

    def action_toggle_steps(self) -> None:
        tree = self.query_one(StepTree)
        node = tree.cursor_node or tree.root
        if node.is_expanded and node.children:
            node.collapse_all()
        else:
            node.expand_all()

    def action_settings(self) -> None:
        def chosen(choice: Choice | None) -> None:
            if choice is not None:
                self.spec, self.settings = choice.spec, choice.settings
                self.update_status("settings changed")
                self.notify(f"Next question uses {choice.spec}, k {choice.settings.k}, "
                            f"depth {choice.settings.depth}.")

        self.push_screen(SettingsScreen(self.backend, self.spec, self.settings), chosen)

    def action_index(self) -> None:
        if self._index_screen is None:
            self._index_screen = IndexScreen(self.backend, self.settings)
            self.install_screen(self._index_screen, "index")
        self._index_screen.settings = self.settings
        if self.screen is not self._index_screen:
            self.push_screen("index")

    async def action_quit(self) -> None:
        """Ask running work to stop between steps, then leave; the worker threads end on their own."""
        if self._stop_ask is not None:
            self._stop_ask.set()
        if self._index_screen is not None:
            self._index_screen.action_stop()
        self.exit()


def run_app(backend: Backend | None = None) -> None:
    AssistantApp(backend).run()
