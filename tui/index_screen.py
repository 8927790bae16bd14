"""The index screen: sources with their counts; add a folder or file to a named collection (new or
existing), or a Wikipedia dump or passage file, with a progress bar (in a worker thread,
cancellable with Esc); re-index or remove a source."""
from __future__ import annotations

import threading
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.suggester import SuggestFromList, Suggester
from textual.widgets import Button, DataTable, Footer, Header, Input, ProgressBar, Static

from models.errors import AssistantError

from assistant.service import PASSAGE_FILE_SUFFIXES

from .progress_view import ProgressView

ADDABLE_FILES = (".xml", ".xml.bz2", *PASSAGE_FILE_SUFFIXES)  # dumps and passage files


class PathSuggester(Suggester):
    """Completes the last part of a path from what exists on disk (→ accepts): folders, and
    files the index screen can add."""

    def __init__(self):
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        path = Path(value).expanduser()
        folder, prefix = (path, "") if value.endswith("/") else (path.parent, path.name)
        try:
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()
                           if p.name.startswith(prefix) and not p.name.startswith(".")
                           and (p.is_dir() or p.name.lower().endswith(ADDABLE_FILES)))
        except OSError:
            return None
        return value + names[0][len(prefix):] if names else None


def overlap_note(path: Path, sources: list[str]) -> str:
    """What adding `path` does to the folders already indexed: files are indexed once, so a
    folder inside an indexed one updates that source, and one holding indexed folders absorbs them."""
    try:
        target = path.expanduser().resolve()
    except (OSError, RuntimeError):
        return ""
    outer = [s for s in sources if Path(s) != target and Path(s) in target.parents]
    if outer:
        return (f"{target} is inside the indexed folder {outer[0]}: its files are indexed once, as part "
                "of that source, which is updated.")
    inner = [s for s in sources if target in Path(s).parents]
    if inner:
        listed = ", ".join(inner[:3]) + (f" and {len(inner) - 3} more" if len(inner) > 3 else "")
        return f"{target} holds the indexed folder(s) {listed}: they become part of this one (files indexed once)."
    return ""


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [Binding("y", "dismiss(True)", "Yes"), Binding("n,escape", "dismiss(False)", "No")]

    def __init__(self, question: str):
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.question)
            with Horizontal(id="confirm-buttons"):
                yield Button("Yes (y)", variant="error", id="yes")
                yield Button("No (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class IndexScreen(Screen):
    BINDINGS = [
        Binding("escape", "stop_or_back", "Stop/Back"),
        Binding("f3", "back", "Back", show=False),
        Binding("ctrl+r", "reindex", "Re-index"),
        Binding("f8", "remove", "Remove"),
        Binding("delete", "remove", "Remove", show=False),
    ]

    class Progressed(Message):
        def __init__(self, view: ProgressView):
            super().__init__()
            self.view = view

    class Finished(Message):
        def __init__(self, text: str, ok: bool):
            super().__init__()
            self.text, self.ok = text, ok

    def __init__(self, backend, settings):
        super().__init__()
        self.backend = backend
        self.settings = settings
        self._stop: threading.Event | None = None
        self._live = None  # index_builder's Progress of the running worker, read by a timer
        self._sources: list[str] = []
        self._collections: dict[str, list[str]] = {}  # source -> the named collections it is in
        self._resume: dict[str, str] = {}  # source -> the collection its interrupted run was adding to
        self._overlap = ""  # what the run under way does to other sources, said again at its end

    @property
    def busy(self) -> bool:
        return self._stop is not None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="index-summary")
        yield DataTable(id="sources", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="add-row"):
            yield Input(placeholder="folder, file, dump or passage file to add (→ completes)", id="folder",
                        suggester=PathSuggester())
            yield Input(placeholder="collection (default)", id="collection",
                        suggester=SuggestFromList([c.name for c in self.backend.collections(self.settings)]))
            yield Button("Add", variant="primary", id="add")
        with Horizontal(id="index-buttons"):
            yield Button("Re-index", id="reindex")
            yield Button("Remove", variant="error", id="remove")
            yield Button("Stop", id="stop", disabled=True)
            yield Button("Back", id="back")
        yield ProgressBar(id="index-progress", show_eta=False)
        yield Static("", id="index-status")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Index"
        table = self.query_one("#sources", DataTable)
        table.add_columns("Source", "Kind", "Documents", "Passages")
        if self.app.is_headless:
            for field in self.query(Input):
                field.cursor_blink = False
        self.query_one("#index-progress", ProgressBar).display = False
        self.query_one("#folder", Input).focus()
        self.set_interval(0.25, self.poll_progress)

    def on_screen_resume(self) -> None:
        self.refresh_sources()  # another run (or the CLI) may have changed the index

    # -- the sources table -----------------------------------------------------------------
    def refresh_sources(self) -> None:
        table = self.query_one("#sources", DataTable)
        table.clear()
        summary = self.query_one("#index-summary", Static)
        try:
            info = self.backend.index_info(self.settings)
        except AssistantError as exc:
            summary.update(Text(f"error: {exc}", "red"))
            return
        if not info.exists:
            summary.update(Text(f"No index yet at {info.path}. Type a folder below and press Enter.", "yellow"))
            return
        summary.update(Text.assemble(("Index ", "bold"), str(info.path), (f"  ·  {len(info.sources)} sources · "
                                     f"{info.documents} documents · {info.passages} passages · "
                                     f"embedder {info.embedding_model}", "dim")))
        self._sources = [s.source for s in info.sources]
        self._collections = {s.source: s.collections for s in info.sources}
        self._resume = {s.source: s.resume_collection for s in info.sources if s.resume_collection}
        for s in info.sources:
            table.add_row(s.source, s.kind, str(s.documents), str(s.passages), key=s.source)

    def selected_source(self) -> str | None:
        table = self.query_one("#sources", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value)

    # -- actions -------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.add(self.query_one("#folder", Input).value)  # Enter in the collection field adds as well

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {"add": lambda: self.add(self.query_one("#folder", Input).value),
                   "reindex": self.action_reindex, "remove": self.action_remove,
                   "stop": self.action_stop, "back": self.action_back}
        actions[event.button.id]()

    def add(self, text: str) -> None:
        text = text.strip()
        if not text:
            self.set_status("Type the folder to add first.", "yellow")
            return
        self.start(Path(text).expanduser(), self.query_one("#collection", Input).value.strip() or None)

    def action_reindex(self) -> None:
        source = self.selected_source()
        if source is None:
            self.set_status("Nothing to re-index: the index has no sources.", "yellow")
            return
        named = self._collections.get(source) or []
        into = self._resume.get(source) or (named[0] if named else None)  # an interrupted run: its own
        self.start(Path(source), None if into == "default" else into)  # stays where it is, not added to default

    def action_remove(self) -> None:
        source = self.selected_source()
        if source is None or self.busy:
            self.set_status("Wait for indexing to finish or stop it (Esc)." if self.busy
                            else "Nothing to remove.", "yellow")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                try:
                    self.backend.remove_source(self.settings, source)
                except AssistantError as exc:
                    self.set_status(f"error: {exc}", "red")
                    return
                self.set_status(f"Removed {source}.", "green")
                self.refresh_sources()

        self.app.push_screen(ConfirmScreen(f"Remove {source} and its passages from the index?"), confirmed)

    def action_stop(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self.set_status("Stopping after the current batch…", "yellow")

    def action_stop_or_back(self) -> None:
        if self.busy:
            self.action_stop()
        else:
            self.action_back()

    def action_back(self) -> None:
        self.app.pop_screen()  # indexing goes on in its worker; the screen object keeps its state

    # -- the worker ----------------------------------------------------------------------
    def start(self, folder: Path, collection: str | None = None) -> None:
        if self.busy:
            self.set_status("Already indexing; Esc stops it.", "yellow")
            return
        self._stop, self._live = threading.Event(), None
        bar = self.query_one("#index-progress", ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = True
        self.query_one("#stop", Button).disabled = False
        self._overlap = overlap_note(folder, self._sources) if folder.is_dir() else ""
        if self._overlap:
            self.app.notify(self._overlap, timeout=8)
        into = f" into the collection {collection}" if collection else ""
        self.set_status(f"Loading the embedder, then indexing {folder}{into} … (Esc stops)", "")
        self.index_worker(folder, self._stop, collection)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def index_worker(self, folder: Path, stop: threading.Event, collection: str | None = None) -> None:
        from models.errors import Cancelled

        def on_progress(progress) -> None:
            if self._live is None:  # from now on the poll timer reads it; the pipeline reports seldom
                self._live = progress
                self.post_message(self.Progressed(ProgressView.of(progress)))

        try:
            line = self.backend.add_source(self.settings, folder, on_progress=on_progress,
                                           should_stop=stop.is_set, collection=collection)
            into = f" (collection {collection})" if collection else ""
            self.post_message(self.Finished(f"Done: {line}{into}", True))
        except Cancelled:
            into = f" into the collection {collection}" if collection else ""
            self.post_message(self.Finished(f"Stopped. What was written is kept; add the same path again{into} "
                                            "(or Ctrl+R on it) to resume.", False))
        except AssistantError as exc:
            self.post_message(self.Finished(f"error: {exc}", False))
        except Exception as exc:  # never a crash: show it and keep the app running
            self.post_message(self.Finished(f"error: unexpected {type(exc).__name__}: {exc}", False))

    def on_index_screen_progressed(self, message: Progressed) -> None:
        self.show_progress(message.view)

    def poll_progress(self) -> None:
        if self._live is not None and self.busy:
            self.show_progress(ProgressView.of(self._live))

    def show_progress(self, view: ProgressView) -> None:
        if not self.busy:
            return  # a report that arrived after the worker finished
        self.query_one("#index-progress", ProgressBar).update(total=view.total, progress=view.done)
        if not self._stop.is_set():  # keep "Stopping…" visible once asked
            self.set_status(view.line(), "")

    def on_index_screen_finished(self, message: Finished) -> None:
        self._stop, self._live = None, None
        self.query_one("#stop", Button).disabled = True
        bar = self.query_one("#index-progress", ProgressBar)
        if message.ok and bar.total:
            bar.update(progress=bar.total)
        elif not message.ok:
            bar.display = False  # an indeterminate bar would pulse on as if work went on
        self.set_status(message.text, "green" if message.ok else "red" if message.text.startswith("error")
                        else "yellow")
        self.refresh_sources()
        changed = getattr(self.app, "index_changed", None)
        if changed is not None:
            changed()
        if self.app.screen is not self:
            self.app.notify(message.text, severity="information" if message.ok else "warning")

    def set_status(self, text: str, style: str) -> None:
        self.query_one("#index-status", Static).update(Text(text, style))
