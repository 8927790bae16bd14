"""The app's other screens as the main screen opens them: settings (F2), the index (F3, or a folder
typed as a question), and quitting while work runs. Mixed into AssistantApp (tui/app.py)."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from models.errors import AssistantError

from .index_screen import ConfirmScreen, IndexScreen
from .panels import AnswerPanel
from .settings_screen import Choice, SettingsScreen


def typed_folder(text: str) -> Path | None:
    """The folder a "question" names, when it is one (a path, not a sentence)."""
    if "/" not in text and not text.startswith("~"):
        return None
    try:
        path = Path(text).expanduser()
        return path.resolve() if path.is_dir() else None
    except (OSError, RuntimeError, ValueError):
        return None


class ScreenKeys:
    """Needs from the app: backend, settings, spec, store, asking, exchanges, update_status."""

    _index_screen: IndexScreen | None = None

    # -- the index, as the status line and the first-run message show it -----------------------
    def refresh_index_line(self) -> None:
        try:
            info = self.backend.index_info(self.settings)
        except AssistantError:
            self.index_line, self.index_empty, self.index_where = "index unreadable", False, ""
            return
        self.index_where = str(info.path)
        self.index_empty = not info.exists or info.passages == 0
        self.index_line = "index empty" if self.index_empty else \
            f"index {info.documents} files · {info.passages} passages"

    def index_changed(self) -> None:
        """Called by the index screen when a run ends: the status line and first-run text follow."""
        was_empty = self.index_empty
        self.refresh_index_line()
        if not self.asking:
            self.update_status(self._state)
        if was_empty and not self.index_empty and self.query_one(AnswerPanel).answer is None and not self.exchanges:
            self.query_one(AnswerPanel).reset("The index is ready. Type a question above and press Enter.")

    def action_settings(self) -> None:
        def chosen(choice: Choice | None) -> None:
            if choice is not None:
                self.spec, self.settings = choice.spec, choice.settings
                if self.store is not None:
                    self.store.save_settings(self.spec, self.settings)
                self.update_status("settings changed")
                self.notify(f"Next question uses {choice.spec}, k {choice.settings.k}, "
                            f"depth {choice.settings.depth}.")

        self.push_screen(SettingsScreen(self.backend, self.spec, self.settings), chosen)

    def action_index(self):
        if self._index_screen is None:
            self._index_screen = IndexScreen(self.backend, self.settings)
            self.install_screen(self._index_screen, "index")
        self._index_screen.settings = self.settings
        if self.screen is not self._index_screen:
            return self.push_screen("index")
        return None

    async def add_folder(self, folder: Path) -> None:
        """Open the index screen and start adding `folder` there, with its progress bar."""
        mounted = self.action_index()
        if mounted is not None:
            await mounted
        self._index_screen.query_one("#folder", Input).value = str(folder)
        self._index_screen.start(folder)

    async def action_quit(self) -> None:
        """Leave, after asking when an answer or indexing would be cut off."""
        indexing = self._index_screen is not None and self._index_screen.busy
        if not self.asking and not indexing:
            self.exit()
            return
        what = "An answer is being worked on. Quit anyway?" if self.asking else \
            "A folder is being indexed. Quit anyway? (adding the same folder again resumes)"

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.stop_all_and_exit()

        if not isinstance(self.screen, ConfirmScreen):
            self.push_screen(ConfirmScreen(what), confirmed)

    def stop_all_and_exit(self) -> None:
        """Ask running work to stop between steps, then leave; the worker threads end on their own."""
        if self._stop_ask is not None:
            self._stop_ask.set()
        if self._index_screen is not None:
            self._index_screen.action_stop()
        self.exit()
