"""The full-screen app: ask, watch the steps live, open passages, switch settings, manage the index.

A question runs in a worker thread over `Backend.ask` (the runner's event generator); each
event is posted to the UI thread. Stopping = no longer iterating, checked between events.
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Header, Input, Static, Tree

from models.errors import AssistantError, IndexUnusable, Interrupted, ModelError, OptionError

from assistant.events import Answer, Event, Token
from assistant.strategies import DEFAULT_STRATEGY

from .backend import Backend
from .index_screen import IndexScreen
from .panels import AnswerPanel, DetailPanel
from .settings_screen import Choice, SettingsScreen
from .steps import StepTree

DEFAULT_SPEC = DEFAULT_STRATEGY  # the same default as `assistant ask`


def hint_for(exc: Exception) -> str:
    """What the user can do about an error, in this app's keys: chosen by the error's type."""
    if isinstance(exc, IndexUnusable):  # none, empty, damaged, or built with another embedder
        return "Press F3 to open the index screen and add a folder of documents."
    if isinstance(exc, ModelError):
        return "Press F2 to choose another reader (a .gguf file) or judge."
    if isinstance(exc, OptionError):
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
        Binding("f4", "toggle_steps", "Fold"),  # short labels: the legend fits 80 columns
        # the screen's own Tab binding is hidden; this one puts it in the legend
        Binding("tab", "focus_next", "Pane", priority=True),
        Binding("ctrl+l", "focus_question", "Question", show=False),
        Binding("slash", "focus_question", "Question", show=False),
        *[Binding(str(n), f"open_citation({n})", f"Source {n}", show=False) for n in range(1, 10)],
    ]

    # Both messages carry the stop flag of the run that sent them: a stopped run's late
    # messages must not touch the next question's tree or state.
    class StepEvent(Message):
        def __init__(self, event: Event, run: threading.Event):
            super().__init__()
            self.event, self.run = event, run

    class AskEnded(Message):
        def __init__(self, run: threading.Event | None, error: str = "", hint: str = "", stopped: bool = False):
            super().__init__()
            self.run, self.error, self.hint, self.stopped = run, error, hint, stopped

    def __init__(self, backend: Backend | None = None, spec: str = DEFAULT_SPEC):
        super().__init__()
        self.backend = backend or Backend()
        self.spec = spec
        self.settings = None  # loaded on mount, where a bad config can be shown
        self._stop_ask: threading.Event | None = None
        self._one_run_at_a_time = threading.Lock()
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
        self.refresh_bindings()
        self.update_status("answering")
        self.ask_worker(question, self.spec, self.settings, self._stop_ask)

    @work(thread=True, group="ask", exit_on_error=False)
    def ask_worker(self, question: str, spec: str, settings, stop: threading.Event) -> None:
        # A stopped run ends at its next step; the models are not safe to share between two
        # runs, so the next question waits for that here rather than running beside it.
        with self._one_run_at_a_time:
            self._run_question(question, spec, settings, stop)

    def _run_question(self, question: str, spec: str, settings, stop: threading.Event) -> None:
        if stop.is_set():
            return
        events = self.backend.ask(question, spec, settings, should_stop=stop.is_set)
        try:
            for event in events:
                if stop.is_set():
                    return  # the UI already shows "stopped"
                self.post_message(self.StepEvent(event, stop))
            self.post_message(self.AskEnded(stop))
        except Interrupted:
            return  # stopped inside a model call; the UI already shows "stopped"
        except AssistantError as exc:
            self.post_message(self.AskEnded(stop, str(exc), hint_for(exc)))
        except Exception as exc:  # never a crash: show it, keep the app usable
            self.post_message(self.AskEnded(stop, f"unexpected {type(exc).__name__}: {exc}",
                                            "This is a bug; the app keeps running."))
        finally:
            events.close()  # runs the strategy's clean-up on this thread

    def on_assistant_app_step_event(self, message: StepEvent) -> None:
        event = message.event
        if message.run is not self._stop_ask or message.run.is_set():
            return  # still queued from a stopped run
        tree = self.query_one(StepTree)
        if isinstance(event, Token):
            if tree.streams_answer(event):
                self.query_one(AnswerPanel).add_token(event.step, event.text)
            return
        node = tree.add_event(event)
        if node is not None and not tree.has_focus:  # follow the run unless the user is browsing
            self.call_after_refresh(tree.scroll_to_node, node, animate=False)
        if isinstance(event, Answer):
            self.query_one(AnswerPanel).show_answer(event)

    def on_assistant_app_ask_ended(self, message: AskEnded) -> None:
        if message.run is not self._stop_ask:
            return  # the end of a run that was already stopped
        self._stop_ask = None
        self.refresh_bindings()
        panel = self.query_one(AnswerPanel)
        if message.error:
            panel.show_error(message.error, message.hint)
            self.update_status("error")
        elif message.stopped:
            panel.show_error("you stopped this question.", "Ask again, or change settings with F2.", kind="stopped")
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
    MAIN_SCREEN_ONLY = {"toggle_steps", "focus_question", "stop", "settings", "index", "open_citation"}

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Keys of the main screen are neither shown nor active over the other screens;
        Stop only shows while there is something to stop."""
        if action in self.MAIN_SCREEN_ONLY and len(self.screen_stack) > 1:
            return action == "index" and isinstance(self.screen, IndexScreen)  # F3 there goes back
        if action == "stop":
            return self.asking
        return True

    def action_open_citation(self, number: int) -> None:
        passage = self.query_one(AnswerPanel).citation(number)
        if passage is None:
            self.notify(f"The answer has no source [{number}].", severity="warning", timeout=3)
            return
        self.query_one(DetailPanel).show(passage)

    def action_stop(self) -> None:
        if self._stop_ask is not None:
            self._stop_ask.set()
            self.on_assistant_app_ask_ended(self.AskEnded(self._stop_ask, stopped=True))

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
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread()):
        # the terminal is back, but a model call or an index batch still has to end
        print("finishing the current step before exiting…", file=sys.stderr, flush=True)
