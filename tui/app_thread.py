"""The app as a conversation (`assistant tui --thread NAME`): follow-ups are rewritten from the
thread's earlier turns, the thread is saved after each answer and reopened with its turns in
the history (F5), and F6 exports it as Markdown. Mixed into AssistantApp (tui/app.py)."""
from __future__ import annotations

from pathlib import Path

from assistant.events import Answer, Passage

from .transcript import Exchange


class ThreadKeys:
    """Needs from the app: settings, spec, backend, exchanges, notify; sets thread_name."""

    thread_name: str | None = None

    def _open_thread(self) -> None:
        """The thread's earlier turns as exchanges of the history, so that F5 shows them."""
        if not self.thread_name:
            return
        from models.errors import AssistantError

        try:
            thread = self.backend.thread(self.settings, self.thread_name)
        except AssistantError as exc:
            self.notify(str(exc), severity="error")
            self.thread_name = None
            return
        for turn in thread.turns:
            cited = [Passage(id=c.label, text="", title=c.title, path=c.label) for c in turn.citations]
            answer = Answer(question=turn.standalone or turn.question, text=turn.answer, marked_text=turn.answer,
                            citations=cited)
            self.exchanges.append(Exchange(turn.question, turn.strategy or self.spec, [answer]))
        self.sub_title = f"conversation {thread.name}" + (f" ({len(thread.turns)} earlier turns, F5)"
                                                          if thread.turns else "")

    def action_export_thread(self) -> None:
        if not self.thread_name:
            self.notify("Not in a conversation: start the app with `assistant tui --thread NAME`.")
            return
        from models.errors import AssistantError

        target = Path.cwd() / f"{self.thread_name}.md"
        try:
            markdown = self.backend.thread(self.settings, self.thread_name).to_markdown()
            target.write_text(markdown, encoding="utf-8")
        except (AssistantError, OSError) as exc:
            self.notify(f"Could not export: {exc}", severity="error")
            return
        self.notify(f"Wrote {target}")
