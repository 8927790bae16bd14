"""The app as a conversation: every question is a turn of the current thread (saved through the
same thread store as `assistant chat` and `ask --thread`), earlier turns stay in the step tree
folded, a follow-up is rewritten from them; Ctrl+N starts a new thread, F7 reopens a saved one,
F6 exports the current one as Markdown. Mixed into AssistantApp (tui/app.py)."""
from __future__ import annotations

from pathlib import Path

from models.errors import AssistantError

from assistant.events.details import QuestionRewritten
from assistant.events.core import Answer, Passage

from .panels import SAVED, AnswerPanel, DetailPanel
from .steps import StepTree
from .threads_screen import ThreadsScreen
from .transcript import Exchange


class ThreadKeys:
    """Needs from the app: settings, spec, backend, store, exchanges, shown, asking, notify; sets thread_name."""

    thread_name: str | None = None

    def _open_thread(self) -> None:
        """At start: the thread given on the command line, else the one open when the app last closed."""
        if not self.thread_name and self.store is not None:
            self.thread_name = self.store.load().thread
        if not self.thread_name or not self.open_thread(self.thread_name, quiet=True):
            self.thread_name = None
            self._thread_title()

    def open_thread(self, name: str, quiet: bool = False) -> bool:
        """Show a saved thread's turns (folded, the last answer in the answer pane); False when it cannot be read."""
        try:
            thread = self.backend.thread(self.settings, name)
        except AssistantError as exc:
            self.notify(str(exc), severity="error")
            return False
        self._forget_turns()
        self.thread_name = thread.name
        tree = self.query_one(StepTree)
        for turn in thread.turns:
            exchange = Exchange(turn.question, turn.strategy or self.spec, saved_turn_events(turn))
            self.exchanges.append(exchange)
            tree.start(turn.question)
            for event in exchange.events:
                tree.add_event(event)
            tree.end_turn(exchange.answer)
        if self.exchanges:
            tree.turn.collapse()
            self.shown = len(self.exchanges) - 1
            self.query_one(AnswerPanel).show_answer(self.exchanges[-1].answer)
        self._thread_title()
        self._remember_thread()
        if not quiet:
            older = " (the most recent; F6 exports them all)" if thread.older_not_loaded else ""
            self.notify(f"Reopened {thread.name}: {len(thread.turns)} earlier turn(s){older}; a follow-up is "
                        "understood from them.", timeout=5)
        return True

    def _forget_turns(self) -> None:
        self.exchanges.clear()
        self.shown = None
        self.query_one(StepTree).forget_turns()
        self.query_one(AnswerPanel).reset()
        self.query_one(DetailPanel).show(None)

    def _thread_title(self) -> None:
        earlier = len(self.exchanges)
        self.sub_title = (f"conversation {self.thread_name}" + (f" · {earlier} turn(s)" if earlier else "")
                          if self.thread_name else "new conversation")

    def _remember_thread(self) -> None:
        if self.store is not None:
            self.store.save_thread(self.thread_name)

    def thread_for(self, question: str) -> str:
        """The thread a question goes to: the current one, or a new one named after this first question."""
        if not self.thread_name:
            self.thread_name = self.backend.new_thread_name(self.settings, question)
            self._remember_thread()
        return self.thread_name

    def turn_ended(self, answer: Answer | None) -> None:
        self.query_one(StepTree).end_turn(answer)
        self._thread_title()

    # -- keys ------------------------------------------------------------------------------
    def action_new_thread(self) -> None:
        if self.asking:
            self.notify("Wait for the answer or stop it (Esc) before starting a new conversation.",
                        severity="warning")
            return
        self._forget_turns()
        self.thread_name = None
        self._remember_thread()
        self._thread_title()
        self.notify("A new conversation: the next question starts it (it is saved under a name taken "
                    "from that question; F7 lists saved ones).", timeout=5)

    def action_threads(self) -> None:
        try:
            saved = self.backend.thread_list(self.settings)
        except AssistantError as exc:
            self.notify(str(exc), severity="error")
            return

        def chosen(name: str | None) -> None:
            if name is None:
                return
            if self.asking:
                self.notify("Wait for the answer or stop it (Esc) first.", severity="warning")
                return
            self.open_thread(name)

        self.push_screen(ThreadsScreen(saved, self.thread_name), chosen)

    def action_export_thread(self) -> None:
        if not self.thread_name or not self.exchanges:
            self.notify("Nothing to export yet: ask a question first.", severity="warning", timeout=4)
            return
        try:
            markdown = self.backend.thread(self.settings, self.thread_name, whole=True).to_markdown()
        except AssistantError as exc:
            self.notify(f"Could not export: {exc}", severity="error")
            return
        for folder in (Path.cwd(), Path(self.settings.data_dir) / "exports"):  # the second when cwd is read-only
            target = folder / f"{self.thread_name}.md"
            try:
                folder.mkdir(parents=True, exist_ok=True)
                target.write_text(markdown, encoding="utf-8")
            except OSError:
                continue
            self.notify(f"Exported the conversation to {target}", timeout=8)
            return
        self.notify("Could not export: neither the current folder nor the data dir is writable.", severity="error")


def saved_turn_events(turn) -> list:
    """A saved turn as the events the tree shows: its rewrite (when it had one) and its answer with
    the sources' names (a thread keeps no passage text)."""
    events = []
    if turn.standalone:
        events.append(QuestionRewritten(summary=f"Asked as: “{turn.standalone}”", question=turn.question,
                                        standalone=turn.standalone))
    cited = [Passage(id=c.label, text="", title=c.title, path=c.label) for c in turn.citations]
    events.append(Answer(question=turn.standalone or turn.question, text=turn.answer, marked_text=turn.answer,
                         citations=cited, resolved_by=SAVED))
    return events
