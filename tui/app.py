"""The full-screen app: ask, watch the steps live, open passages, switch settings, manage the index.

A question runs in a worker thread over `Backend.ask` (the runner's event generator); each
event is posted to the UI thread. Stopping = no longer iterating, checked between events.
"""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Header, Input, Static, Tree

from models.errors import AssistantError, Interrupted

from assistant.events.core import Answer, Event, Started, Token
from assistant.strategies import DEFAULT_STRATEGY

from .app_screens import ScreenKeys, typed_folder
from .app_session import SessionKeys
from .error_hints import hint_for
from .app_thread import ThreadKeys
from .backend import Backend
from .index_screen import ConfirmScreen, IndexScreen
from .panels import AnswerPanel, DetailPanel
from .question_input import QuestionInput
from .session_store import SessionStore
from .steps import StepTree
from .transcript import Exchange

__all__ = ["AssistantApp", "AnswerPanel", "DetailPanel", "QuestionInput", "StepTree", "run_app"]

DEFAULT_SPEC = DEFAULT_STRATEGY  # the same default as `assistant ask`


class AssistantApp(ScreenKeys, SessionKeys, ThreadKeys, App):
    CSS_PATH = "app.tcss"
    TITLE = "Offline assistant"
    ENABLE_COMMAND_PALETTE = False  # its key would crowd the legend; F1 lists the app's keys
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-tall")]  # below 24 rows: no header, a 1-row question box
    # Steps and answer share the width: half each from 100 columns, and from 140 the answer side
    # gets 3/5 (the steps' lines scroll sideways; the answer and the sources are what is read).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide"), (140, "-wider")]
    # No bare letter acts here: a key typed outside the question box must not lose work.
    # Short labels: the legend fits 60 columns; F1 lists every key.
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        # not a priority: the question box copies its own selection, the screen the mouse's
        Binding("ctrl+c", "copy_selection", "Copy", show=False),
        Binding("f1", "help", "Help"),
        Binding("question_mark", "help", "Help", show=False),
        Binding("f2", "settings", "Settings"),
        Binding("f3", "index", "Index"),
        Binding("f5", "transcript", "History"),
        Binding("ctrl+y", "copy_answer", "Copy"),
        Binding("f6", "export_thread", "Export", show=False),
        Binding("f7", "threads", "Threads", show=False),
        Binding("ctrl+n", "new_thread", "New chat", show=False),
        Binding("escape", "stop", "Stop"),
        Binding("f4", "toggle_steps", "Fold", show=False),
        Binding("o", "open_source", "Open file", show=False),
        Binding("tab", "focus_next", "Pane", show=False, priority=True),
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

    def __init__(self, backend: Backend | None = None, spec: str | None = None, state_dir: Path | None = None,
                 remember: bool = True, thread: str | None = None):
        """`state_dir` holds the question history and last settings (default: the data dir);
        `remember` False neither reads nor writes them (a given `spec` is then kept)."""
        super().__init__()
        self.backend = backend or Backend()
        self.spec = spec or DEFAULT_SPEC
        self._spec_given = spec is not None
        self.settings = None  # loaded on mount, where a bad config can be shown
        self._state_dir, self._remember = state_dir, remember
        self.store: SessionStore | None = None
        self._stop_ask: threading.Event | None = None
        self._one_run_at_a_time = threading.Lock()
        self._index_screen: IndexScreen | None = None
        self.exchanges: list[Exchange] = []  # this session's transcript
        self.shown: int | None = None  # which exchange the panes show
        self._loaded_models: set[tuple] = set()  # model settings a question has already loaded
        self._asked_at = 0.0
        self._waiting_for_models = False
        self.index_line = ""
        self.thread_name = thread  # every question is a turn of this thread (tui/app_thread.py)

    def compose(self) -> ComposeResult:
        yield Header()
        yield QuestionInput(placeholder="Ask a question and press Enter (↑↓ history)", id="question")
        with Horizontal(id="main"):
            yield StepTree(id="steps")
            with Vertical(id="side"):
                yield AnswerPanel(id="answer")
                yield DetailPanel(id="detail")
        yield Static("", id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#steps").border_title = "Steps"
        self.query_one("#answer").border_title = "Answer"
        self.query_one("#detail").border_title = "Detail"
        if self.is_headless:  # a still cursor keeps snapshots deterministic
            self.query_one(QuestionInput).cursor_blink = False
        config_error = None
        try:
            self.settings = self.backend.initial_settings()
        except AssistantError as exc:
            from models.config import Settings

            self.settings, config_error = Settings(), exc
        self._restore_session()
        self._open_thread()
        self.refresh_index_line()
        self._demo_reader_notice()
        if config_error is not None:
            self.query_one(AnswerPanel).show_error(str(config_error), "Fix the config file or environment, or "
                                                   "press F2 to choose settings for this session.")
        elif self.index_empty:
            self.query_one(AnswerPanel).show_first_run(self.index_where)
        self.update_status("ready")
        self.query_one(QuestionInput).focus()
        self.set_interval(1.0, self._tick)

    def push_screen(self, screen, *args, **kwargs):
        """A pushed screen takes the size classes at once (Textual sets them at its first resize,
        which a dialog opened in a steady terminal does not get)."""
        target = self.get_screen(screen) if isinstance(screen, str) else screen
        for low, name in self.VERTICAL_BREAKPOINTS:
            target.set_class(name == self._size_class(), name)
        return super().push_screen(screen, *args, **kwargs)

    def _size_class(self) -> str:
        return [name for low, name in self.VERTICAL_BREAKPOINTS if self.size.height >= low][-1]

    # -- status line -----------------------------------------------------------------------
    def update_status(self, state: str) -> None:
        """State first, then what is indexed, then the settings: a narrow screen cuts the end."""
        s = self.settings
        reader = Path(s.reader).name if s.reader else "bundled"
        self._state = state
        within = [("  in ", "dim"), (s.collection, "bold")] if s.collection else []  # asked within one collection
        text = Text.assemble((f" {state} ", "reverse"), " ", (self.index_line, "bold"), *within,
                             ("  strategy ", "dim"), self.spec, ("  k ", "dim"), str(s.k), ("  depth ", "dim"),
                             str(s.depth), ("  judge ", "dim"), s.judge, ("  reader ", "dim"), reader)
        self.query_one("#status", Static).update(text)

    def _tick(self) -> None:
        """While answering, the status line counts the seconds (a first answer can take a minute)."""
        if self.asking:
            what = "loading models" if self._waiting_for_models else "answering"
            self.update_status(f"{what} {time.monotonic() - self._asked_at:.0f}s")

    def _models_key(self, settings) -> tuple:
        return tuple(str(getattr(settings, name, "")) for name in
                     ("reader", "judge", "judge_path", "embedder", "relevance_judge", "n_ctx", "n_gpu_layers"))

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
        question_input.value = ""
        folder = typed_folder(question)
        if folder is not None:  # the shortest way to an index: type the folder where you are
            def confirmed(yes: bool | None) -> None:
                if yes:
                    self.call_later(self.add_folder, folder)
                else:
                    question_input.value = question

            self.push_screen(ConfirmScreen(f"{folder} is a folder. Add it to the index?"), confirmed)
            return
        question_input.remember(question)
        self._save_questions()
        self.ask(question)

    def ask(self, question: str) -> None:
        self.exchanges.append(Exchange(question, self.spec))
        self.shown = len(self.exchanges) - 1
        self.query_one(StepTree).start(question)
        self._waiting_for_models = self._models_key(self.settings) not in self._loaded_models
        self.query_one(AnswerPanel).reset("Loading the models, then answering… (Esc stops)"
                                          if self._waiting_for_models else "Answering… (Esc stops)")
        self.query_one(DetailPanel).show(None)
        self._stop_ask = threading.Event()
        self._asked_at = time.monotonic()
        self.refresh_bindings()
        self.update_status("loading models" if self._waiting_for_models else "answering")
        self.ask_worker(question, self.spec, self.settings, self._stop_ask, self.thread_for(question))

    @work(thread=True, group="ask", exit_on_error=False)
    def ask_worker(self, question: str, spec: str, settings, stop: threading.Event, thread: str) -> None:
        # A stopped run ends at its next step; the models are not safe to share between two
        # runs, so the next question waits for that here rather than running beside it.
        with self._one_run_at_a_time:
            self._run_question(question, spec, settings, stop, thread)

    def _run_question(self, question: str, spec: str, settings, stop: threading.Event, thread: str) -> None:
        if stop.is_set():
            return
        events = self.backend.ask(question, spec, settings, should_stop=stop.is_set, thread=thread)
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
        self.exchanges[-1].events.append(event)
        if isinstance(event, Started):  # the models are loaded before the first step
            self._loaded_models.add(self._models_key(self.settings))
            if self._waiting_for_models:
                self._waiting_for_models = False
                self.query_one(AnswerPanel).reset("Answering… (Esc stops)")
        node = tree.add_event(event)
        if node is not None and not tree.has_focus:  # follow the run unless the user is browsing
            self.call_after_refresh(tree.scroll_to_node, node, animate=False)
        if isinstance(event, Answer):
            self.query_one(AnswerPanel).show_answer(event)
            self.query_one(DetailPanel).answer_text = event.text or ""

    def on_assistant_app_ask_ended(self, message: AskEnded) -> None:
        if message.run is not self._stop_ask:
            return  # the end of a run that was already stopped
        self._stop_ask = None
        self._waiting_for_models = False
        self.refresh_bindings()
        self.turn_ended(self.exchanges[-1].answer)
        panel = self.query_one(AnswerPanel)
        if message.error:
            self.exchanges[-1].ending = f"error: {message.error}"
            panel.show_error(message.error, message.hint)
            self.update_status("error")
        elif message.stopped:
            self.exchanges[-1].ending = "stopped"
            panel.show_error("you stopped this question.", "Ask again, or change settings with F2.", kind="stopped")
            self.update_status("stopped")
        else:
            self.update_status("ready")

    # -- selecting things ------------------------------------------------------------------
    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        self.query_one(DetailPanel).show(event.node.data, self.query_one(StepTree).narrator.passages)
        self.turn_highlighted(event.node)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        self.query_one(DetailPanel).show(event.node.data, self.query_one(StepTree).narrator.passages)

    def on_answer_panel_citation_chosen(self, message: AnswerPanel.CitationChosen) -> None:
        self.query_one(DetailPanel).show(message.passage)

    # -- actions ---------------------------------------------------------------------------
    MAIN_SCREEN_ONLY = {"toggle_steps", "focus_question", "stop", "settings", "index", "open_citation", "help",
                        "transcript", "copy_answer", "export_thread", "threads", "new_thread"}

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

def run_app(backend: Backend | None = None, thread: str | None = None) -> None:
    AssistantApp(backend, thread=thread).run()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread()):
        # the terminal is back, but a model call or an index batch still has to end
        print("finishing the current step before exiting…", file=sys.stderr, flush=True)
