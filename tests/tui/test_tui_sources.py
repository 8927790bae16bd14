"""A source in the detail pane: its passage in full with the sentence that supports the answer
highlighted, and `o` opening the original file with the system's opener (at a PDF's page)."""
from __future__ import annotations

import subprocess

from helpers.tui_backend import FakeBackend
from textual.widgets import Static

from assistant.events.core import Passage
from assistant.presentation import source_files
from tui.app import AssistantApp, QuestionInput
from assistant.presentation.source_files import file_of, heading_line, open_command, plan_open
from tui.panels import DetailPanel
from tui.source_view import HIGHLIGHT, highlighted, supporting_span

TEXT = ("Project Heron builds a solar-powered weather buoy. The project is led by the marine engineer "
        "Mira Okafor, who joined in 2021. It floats.")


def test_the_sentence_sharing_most_with_the_answer_is_highlighted():
    start, end = supporting_span(TEXT, "Mira Okafor leads Project Heron.")
    assert TEXT[start:end] == "The project is led by the marine engineer Mira Okafor, who joined in 2021."
    assert supporting_span(TEXT, "Nothing in common here") is None
    text = highlighted(TEXT, "Mira Okafor")
    [span] = [s for s in text.spans if s.style == HIGHLIGHT]
    assert TEXT[span.start:span.end].startswith("The project is led")


def test_the_file_of_a_passage_from_a_folder_or_a_single_file(tmp_path):
    folder = tmp_path / "docs"
    (folder / "projects").mkdir(parents=True)
    note = folder / "projects" / "heron.md"
    note.write_text("# Heron\n")
    assert file_of(Passage(id="a", text="", source=str(folder), path="projects/heron.md")) == note
    assert file_of(Passage(id="b", text="", source=str(note), path="heron.md")) == note
    assert file_of(Passage(id="c", text="", source=str(folder), path="gone.md")) is None
    assert file_of(Passage(id="d", text="", title="Heron (bird)")) is None


def test_the_opener_follows_the_system_and_a_pdf_viewer_gets_the_page(tmp_path):
    pdf, md = tmp_path / "r.pdf", tmp_path / "n.md"
    assert open_command(pdf, 3, which=lambda n: n if n == "evince" else None, platform="linux") == \
        ["evince", "--page-index=3", str(pdf)]
    assert open_command(md, None, which=lambda n: n if n == "xdg-open" else None, platform="linux") == \
        ["xdg-open", str(md)]
    assert open_command(md, None, which=lambda n: None, platform="darwin") == ["open", str(md)]
    assert open_command(md, None, which=lambda n: None, platform="linux") is None


async def test_a_source_opens_highlighted_and_o_opens_its_file(tmp_path, monkeypatch):
    note = tmp_path / "heron.md"
    note.write_text("# Heron\n" + TEXT)
    opened = []
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setattr(subprocess, "Popen", lambda command, **kwargs: opened.append(command))
    monkeypatch.setattr(source_files.shutil, "which", lambda name: name if name == "xdg-open" else None)
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        app.query_one(QuestionInput).value = "Who leads Project Heron?"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.query_one("#steps").focus()
        await pilot.press("1")
        await pilot.pause()
        content = app.query_one("#detail-text", Static).render()
        marked = [str(content)[s.start:s.end] for s in content.spans
                  if getattr(s.style, "background", None) is not None]
        assert marked == ["The project is led by the marine engineer Mira Okafor, who joined in 2021."]
        await pilot.press("o")  # the fake passages have no file: said, nothing run
        await pilot.pause()
        assert opened == []
        panel = app.query_one(DetailPanel)
        panel.show(Passage(id="x", text=TEXT, source=str(note), path="heron.md"))
        await pilot.press("o")
        await pilot.pause()
        assert opened == [["xdg-open", str(note)]]
        assert any("cannot jump to the heading" in str(n.message) for n in app._notifications)


NOTES = "# Projects\n\nIntro.\n\n## Heron\n\nThe buoy.\n\n## Otter\n\nThe robot.\n\n### Team\n\nTomas Lind leads it.\n"


def test_a_markdown_passage_is_found_at_its_heading_or_its_words(tmp_path):
    note = tmp_path / "notes.md"
    note.write_text(NOTES)
    assert heading_line(note, "Projects > Otter > Team") == 13
    assert heading_line(note, "Projects > Heron") == 5
    assert heading_line(note, "Projects > Gone") == 1  # the deepest heading found
    assert heading_line(note, "", "The robot.") == 11  # no section: the line of its first words
    assert heading_line(note, "Elsewhere", "not in the file") is None
    assert heading_line(tmp_path / "missing.md", "Projects") is None


def test_the_editor_gets_the_line_and_the_opener_says_it_cannot(tmp_path):
    note = tmp_path / "notes.md"
    note.write_text(NOTES)
    team = Passage(id="t", text="Tomas Lind leads it.", source=str(note), section="Projects > Otter > Team")
    installed = lambda name: f"/usr/bin/{name}"  # noqa: E731
    plan = plan_open(note, team, env={"EDITOR": "nvim"}, which=installed)
    assert plan.command == ["nvim", "+13", str(note)] and plan.in_terminal and not plan.note
    plan = plan_open(note, team, env={"VISUAL": "code --wait", "EDITOR": "vi"}, which=installed)
    assert plan.command == ["code", "--wait", "-g", f"{note}:13"] and not plan.in_terminal
    plan = plan_open(note, team, env={"EDITOR": "nano"}, which=lambda n: n if n == "xdg-open" else None,
                     platform="linux")  # an $EDITOR that is not installed: the opener, and why
    assert plan.command == ["xdg-open", str(note)] and "$EDITOR (nano) was not found" in plan.note
    plan = plan_open(note, team, env={}, which=lambda n: n if n == "xdg-open" else None, platform="linux")
    assert plan.command == ["xdg-open", str(note)] and "cannot jump to the heading" in plan.note
    assert plan_open(note, team, env={}, which=lambda n: None, platform="linux") is None
    pdf = tmp_path / "r.pdf"
    plan = plan_open(pdf, Passage(id="p", text="", page=4), env={"EDITOR": "vi"},
                     which=lambda n: n if n == "xdg-open" else None, platform="linux")
    assert plan.command == ["xdg-open", str(pdf)] and "page 4" in plan.note  # an editor is no PDF viewer


async def test_o_runs_the_terminal_editor_at_the_heading_with_the_app_aside(tmp_path, monkeypatch):
    import contextlib

    note = tmp_path / "notes.md"
    note.write_text(NOTES)
    ran = []
    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setattr(source_files.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: ran.append(command))
    app = AssistantApp(FakeBackend(tmp_path), remember=False)
    async with app.run_test(size=(100, 30)) as pilot:
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)  # the headless driver cannot suspend
        app.query_one("#steps").focus()
        app.query_one(DetailPanel).show(Passage(id="t", text="Tomas Lind leads it.", source=str(note),
                                                path="notes.md", section="Projects > Otter > Team"))
        await pilot.press("o")
        await pilot.pause()
    assert ran == [["nano", "+13", str(note)]]


async def test_an_editor_that_fails_to_start_gives_the_screen_back_and_says_so(tmp_path, monkeypatch):
    import contextlib

    note = tmp_path / "notes.md"
    note.write_text(NOTES)
    resumed = []

    @contextlib.contextmanager
    def suspend():  # like Textual's: resumes only when the block ends without an error
        yield
        resumed.append(True)

    def missing(command, **kwargs):
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setattr(source_files.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(subprocess, "run", missing)
    app = AssistantApp(FakeBackend(tmp_path), remember=False)
    async with app.run_test(size=(100, 30)) as pilot:
        monkeypatch.setattr(app, "suspend", suspend)
        app.query_one("#steps").focus()
        app.query_one(DetailPanel).show(Passage(id="t", text="Tomas Lind leads it.", source=str(note),
                                                path="notes.md", section="Projects > Otter > Team"))
        await pilot.press("o")
        await pilot.pause()
        assert resumed == [True]
        assert any("Could not run nano: No such file or directory" in str(n.message) for n in app._notifications)


async def test_settings_pick_the_collection_to_ask_within_and_the_index_lists_it(tmp_path):
    from assistant import service
    from textual.widgets import DataTable, Select

    backend = FakeBackend(tmp_path)
    settings = backend.initial_settings()
    for name in ("work", "home"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}.md").write_text(f"# {name}\n\nNotes about {name}.\n")
        service.add_source(settings, folder, embedder_factory=backend.embedder_factory, collection=name)
    app = AssistantApp(backend)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f2")
        picker = app.screen.query_one("#collection", Select)
        assert [value for _, value in picker._options] == ["all collections", "home", "work"]
        picker.value = "work"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.settings.collection == "work"
        await pilot.press("f3")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        kinds = sorted(str(table.get_row_at(i)[1]) for i in range(table.row_count))
        assert kinds == ["folder, in home", "folder, in work"]
