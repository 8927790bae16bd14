"""The app as a place to live in: nothing lost by a key, a transcript, memory across restarts,
help, first run and waits, citations, the index screen's news, small terminals (issue 17).
Each test but the damaged-files one (a robustness check) failed on the app before that issue."""
from __future__ import annotations

import threading

from rich.console import Console

from helpers.tui_index import index_folder_in_app, make_folder, status, wait_until
from helpers.tui_backend import SNAPSHOT_INDEX, FakeBackend
from textual import events
from textual.geometry import Offset
from textual.selection import Selection
from textual.widgets import Button, Input, OptionList, ProgressBar, Static

from tui.app import AnswerPanel, AssistantApp, QuestionInput, StepTree
from tui.help_screen import HelpScreen
from tui.index_screen import ConfirmScreen, IndexScreen
from tui.transcript import TranscriptScreen

HERON = "Who leads Project Heron?"


def text_of(app, selector) -> str:
    return str(app.query_one(selector, Static).render())


async def ask(app, pilot, question: str) -> None:
    box = app.query_one(QuestionInput)
    box.focus()
    box.value = question
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_ctrl_c_copies_the_selection_and_ctrl_y_the_answer(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, HERON)
        answer_text = app.query_one("#answer-text", Static)
        app.query_one(StepTree).focus()
        app.screen.selections = {answer_text: Selection(Offset(0, 0), Offset(11, 0))}
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and app.clipboard == "Mira Okafor"
        await pilot.press("ctrl+y")
        assert app.clipboard == "Mira Okafor leads Project Heron. [1]\n[1] heron.md"


async def test_a_multi_line_paste_is_kept_whole(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.query_one(QuestionInput)
        box.focus()
        box.post_message(events.Paste("Who leads\nProject Heron?\n"))
        await pilot.pause()
        assert box.value == "Who leads Project Heron?"
        box.post_message(events.Paste(" Thanks"))
        await pilot.pause()
        assert box.value == "Who leads Project Heron? Thanks"


async def test_past_questions_stay_in_the_transcript_and_can_be_revisited(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="ra-isf")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, HERON)
        await ask(app, pilot, "Who leads Otter?")
        assert "Tomas Lind." in text_of(app, "#answer-text")
        app.query_one(StepTree).focus()
        await pilot.press("f5")
        screen = app.screen
        assert isinstance(screen, TranscriptScreen)
        entries = screen.query_one("#transcript", OptionList)
        assert entries.option_count == 2 and entries.highlighted == 1
        assert "Mira Okafor leads Project Heron. [1]" in str(entries.get_option_at_index(0).prompt)
        await pilot.press("up", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, TranscriptScreen)
        assert "Mira Okafor leads Project Heron. [1]" in text_of(app, "#answer-text")
        tree = app.query_one(StepTree)
        assert tree.cursor_node is tree.turns[0] and tree.turns[0].is_expanded  # the earlier turn, opened
        assert "Project Heron" in str(tree.turns[0].label)
        assert any("Kept 1 of 5 passages" in str(n.label) for n in tree.turns[0].children)
        await pilot.press("1")  # the revisited answer's sources open too
        assert "heron.md" in text_of(app, "#detail-text")


async def test_question_history_and_settings_survive_a_restart(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(app, pilot, HERON)
        await pilot.press("f2")
        app.screen.query_one("#strategy").value = "rag"
        app.screen.query_one("#k", Input).value = "3"
        await pilot.press("ctrl+s")
        await pilot.pause()
    again = AssistantApp(FakeBackend(tmp_path))
    async with again.run_test(size=(80, 24)) as pilot:
        assert again.spec == "rag" and again.settings.k == 3
        await pilot.press("up")
        assert again.query_one(QuestionInput).value == HERON


async def test_damaged_memory_files_are_an_empty_memory(tmp_path):
    (tmp_path / "app-history.json").write_text("{not json")
    (tmp_path / "app-settings.json").write_text('{"spec": "rag", "k": 999}')
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.is_running and app.settings.k == 5  # k = 999 is out of range: not applied
        await pilot.press("up")
        assert app.query_one(QuestionInput).value == ""


async def test_help_lists_the_keys_from_f1_and_question_mark(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("?")  # typed into the question: questions end with one
        assert app.query_one(QuestionInput).value == "?" and not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=100, record=True)
        console.print(app.screen.query_one("#help-keys Static", Static).content)
        shown = console.export_text()
        for key in ("Ctrl+Y", "Ctrl+C", "F5", "F2", "F3", "Ctrl+Q", "source [n]"):
            assert key in shown, key
        await pilot.press("escape")
        app.query_one(StepTree).focus()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_quit_asks_first_while_answering_and_no_leaves_it_running(tmp_path):
    gate = threading.Event()
    app = AssistantApp(FakeBackend(tmp_path, reader_gate=gate))
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(QuestionInput).value = HERON
        await pilot.press("enter")
        await pilot.pause(0.2)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and app.asking
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Mira Okafor" in text_of(app, "#answer-text")  # the answer was not lost


async def test_empty_index_first_run_says_what_to_do_and_status_shows_the_index(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        first = text_of(app, "#answer-text")
        assert "Your index is empty" in first and "F3" in first
        assert "index empty" in text_of(app, "#status")
    indexed = AssistantApp(FakeBackend(tmp_path, fixed_index=SNAPSHOT_INDEX))
    async with indexed.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "index 49 files · 1398 passages" in text_of(indexed, "#status")
        assert "index is empty" not in text_of(indexed, "#answer-text")


async def test_waits_show_elapsed_time_and_loading_models_only_the_first_time(tmp_path):
    gate, loading = threading.Event(), threading.Event()  # the fake models load when `loading` opens
    app = AssistantApp(FakeBackend(tmp_path, reader_gate=gate, load_gate=loading))
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(QuestionInput).value = HERON
        app.post_message(app.query_one(QuestionInput).Submitted(app.query_one(QuestionInput), HERON))
        await pilot.pause(0.05)
        assert "loading models" in text_of(app, "#status") and "Loading the models" in text_of(app, "#answer-text")
        loading.set()
        await pilot.pause(1.3)
        assert "answering 1s" in text_of(app, "#status") or "answering 2s" in text_of(app, "#status")
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        gate.clear()
        app.query_one(QuestionInput).value = "Who leads Otter?"
        app.query_one(QuestionInput).focus()
        await pilot.press("enter")
        await pilot.pause(0.05)
        assert "Loading" not in text_of(app, "#answer-text") and "loading" not in text_of(app, "#status")
        gate.set()
        await app.workers.wait_for_complete()


async def test_the_answer_cites_only_what_it_rests_on_with_markers(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="rag")  # rag reads all 5 passages
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, HERON)
        assert "Mira Okafor leads Project Heron. [1]" in text_of(app, "#answer-text")
        citations = app.query_one("#citations", OptionList)
        assert citations.option_count == 1 and "heron.md" in str(citations.get_option_at_index(0).prompt)


async def test_the_answer_pane_takes_focus_to_scroll(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(app, pilot, HERON)
        panel = app.query_one(AnswerPanel)
        panel.focus()
        await pilot.pause()
        assert app.focused is panel


async def test_a_nested_folder_is_named_and_a_failed_run_stops_the_bar(tmp_path):
    folder = make_folder(tmp_path)
    (folder / "inner").mkdir()
    (folder / "inner" / "more.md").write_text("The inner heron nests by the lake.\n")
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await index_folder_in_app(app, pilot, folder)
        screen.query_one("#folder", Input).value = str(folder / "inner")
        await pilot.press("enter")
        await pilot.pause()
        assert any("inside the indexed folder" in str(n.message) for n in app._notifications)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "already indexed as part of" in status(screen)
        screen.query_one("#folder", Input).value = str(tmp_path / "nowhere")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("error: no such folder")
        assert not screen.query_one("#index-progress", ProgressBar).display  # not pulsing on
        await pilot.press("escape")
        assert "index 5 files" in text_of(app, "#status")  # the main screen's status followed


async def test_settings_buttons_and_answer_stats_fit_60x20(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(60, 20)) as pilot:
        await ask(app, pilot, HERON)
        stats = app.query_one("#answer-stats", Static)
        assert stats.region.width and len(text_of(app, "#answer-stats")) <= 2 * stats.region.width
        await pilot.press("f2")
        await pilot.pause()
        for button in app.screen.query("#settings-buttons Button"):  # the form's own (Pull) are compact
            region = button.region
            assert region.height == 3 and region.bottom <= 20 and region.right <= 60, button.id


async def test_a_folder_typed_in_the_question_box_is_added_in_two_keys(tmp_path):
    folder = make_folder(tmp_path)
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        assert "Your index is empty" in text_of(app, "#answer-text")
        app.query_one(QuestionInput).value = str(folder) + "/"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and not app.exchanges  # not asked as a question
        await pilot.press("y")
        assert await wait_until(pilot, lambda: isinstance(app.screen, IndexScreen))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app.screen).startswith("Done: 4 indexed")
        await pilot.press("escape")
        assert "index 4 files" in text_of(app, "#status")
        assert "index is ready" in text_of(app, "#answer-text")
