"""The parts of the app that make it a place to stay: what is remembered across restarts, the
transcript of this session, help and the copy keys. Mixed into AssistantApp (tui/app.py)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from models.errors import AssistantError

from .help_screen import HelpScreen
from .panels import AnswerPanel, DetailPanel, answer_as_text
from .question_input import QuestionInput
from .session_store import SessionStore
from .steps import StepTree
from .transcript import TranscriptScreen


class SessionKeys:
    """Needs from the app: settings, spec, backend, store, exchanges, shown, asking, notify."""

    def _demo_reader_notice(self) -> None:
        """Once per data dir: the bundled reader is a demo (not in headless runs: snapshots stay still)."""
        from assistant.demo_notice import demo_reader_notice

        notice = None if self.is_headless or self.settings is None else demo_reader_notice(self.settings)
        if notice:
            self.notify(notice, timeout=15)

    # -- what is remembered across restarts
    def _restore_session(self) -> None:
        if not self._remember:
            return
        self.store = SessionStore(self._state_dir or self.settings.data_dir)
        remembered = self.store.load()
        self.query_one(QuestionInput).restore(remembered.questions)
        if remembered.spec and not self._spec_given:
            try:
                self.backend.make_strategy(remembered.spec)
                self.spec = remembered.spec
            except AssistantError:
                pass  # a strategy this version no longer has: the default
        values = dict(remembered.settings)
        reader = values.pop("reader", None)
        try:
            settings = self.settings.with_overrides(**{k: v for k, v in values.items() if v is not None})
            self.settings = replace(settings, reader=Path(reader) if reader else settings.reader)
        except (AssistantError, TypeError, ValueError):
            self.notify("The settings saved last time are not valid any more; using the defaults.",
                        severity="warning")

    def _save_questions(self) -> None:
        if self.store is not None:
            self.store.save_questions(self.query_one(QuestionInput).history)

    # -- help, copying and the transcript
    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_copy_answer(self) -> None:
        answer = self.query_one(AnswerPanel).answer
        if answer is None:
            self.notify("No answer to copy yet.", severity="warning", timeout=3)
            return
        where = self._copy(answer_as_text(answer))
        self.notify(f"The answer and its {len(answer.citations)} source(s): {where}.", timeout=6)

    def _copy(self, text: str) -> str:
        """OSC 52, else the system clipboard tool, else a file; the line saying which (tui/clipboard.py)."""
        from .clipboard import copy_text

        return copy_text(text, self.copy_to_clipboard, self._state_dir or self.settings.data_dir)

    def action_open_source(self) -> None:
        """`o`: open the file of the passage in the detail pane at its heading or page
        (assistant/presentation/source_files.py)."""
        import subprocess

        from assistant.events.core import Passage

        from assistant.presentation.source_files import file_of, plan_open

        shown = self.query_one(DetailPanel).shown
        path = file_of(shown) if isinstance(shown, Passage) else None
        if path is None:
            self.notify("Open a source first (keys 1-9, or a passage in the steps); only indexed files open.",
                        timeout=4)
            return
        plan = plan_open(path, shown)
        if plan is None:
            self.notify(f"No program to open files here (set $EDITOR); the file is {path}", timeout=8)
            return
        try:
            if plan.in_terminal:  # a terminal editor takes the screen until it exits
                with self.suspend():  # which resumes the app only when its block ends without an error
                    failed = _run_or_error(plan.command)
                if failed is not None:
                    raise failed
            else:
                subprocess.Popen(plan.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            self.notify(f"Could not run {plan.command[0]}: {exc.strerror}; the file is {path}", severity="warning")
            return
        except Exception as exc:  # e.g. a terminal that cannot be suspended (Textual's SuspendNotSupported)
            self.notify(f"Could not hand the terminal to {plan.command[0]} ({type(exc).__name__}); the file is "
                        f"{path}", severity="warning")
            return
        where = f" at page {shown.page}" if shown.page else f" at “{shown.section}”" if shown.section else ""
        self.notify(f"Opened {path}{where} with {plan.command[0]}" + (f"; {plan.note}." if plan.note else "."),
                    timeout=6)

    def action_copy_selection(self) -> None:
        """Ctrl+C copies what the mouse selected; with nothing selected it says what the keys do."""
        selected = self.screen.get_selected_text()
        if selected:
            where = self._copy(selected)
            self.notify(f"The selected text: {where}.", timeout=6)
        else:
            self.notify("Nothing selected. Ctrl+Y copies the answer; Ctrl+Q quits.", timeout=4)

    def action_transcript(self) -> None:
        def chosen(index: int | None) -> None:
            if index is not None and index < len(self.exchanges):
                self.show_exchange(index)

        self.push_screen(TranscriptScreen(self.exchanges, self.shown), chosen)

    def show_exchange(self, index: int) -> None:
        """Go to an earlier turn: its node in the step tree opens, its answer shows (not while answering)."""
        if self.asking and index != len(self.exchanges) - 1:
            self.notify("Wait for the answer or stop it (Esc) before going back.", severity="warning")
            return
        tree = self.query_one(StepTree)
        if index >= len(tree.turns):
            return
        node = tree.turns[index]
        node.expand()
        tree.move_cursor(node)
        tree.scroll_to_node(node, animate=False)
        self.show_turn_answer(index)

    def show_turn_answer(self, index: int) -> None:
        """The answer pane shows the turn's answer (or how it ended); the live one is left alone."""
        if self.asking or self.shown == index:
            return
        exchange = self.exchanges[index]
        self.shown = index
        panel = self.query_one(AnswerPanel)
        panel.reset()
        if exchange.answer is not None:
            panel.show_answer(exchange.answer)
            self.query_one(DetailPanel).answer_text = exchange.answer.text or ""
        else:
            panel.show_error(exchange.ending or "no answer", "", kind="stopped")

    def turn_highlighted(self, node) -> None:
        """Moving onto an earlier turn's question shows its answer."""
        turns = self.query_one(StepTree).turns
        if node in turns and turns.index(node) < len(self.exchanges):
            self.show_turn_answer(turns.index(node))


def _run_or_error(command: list[str]) -> OSError | None:
    """Run a program in the terminal; its OSError returned, not raised (see action_open_source)."""
    import subprocess

    try:
        subprocess.run(command, check=False)
    except OSError as exc:
        return exc
    return None
