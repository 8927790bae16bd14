"""The index screen driven with Pilot: the real folder indexer and LanceDB store, a tiny embedder."""
from __future__ import annotations

import json
import threading

from textual.widgets import DataTable, Input, ProgressBar, Static

from tui.app import AssistantApp
from tui.index_screen import IndexScreen
from tui.progress_view import ProgressView

from helpers.tui_backend import FakeBackend
from helpers.tui_index import make_folder, status, wait_until


def rows(screen):
    table = screen.query_one("#sources", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_add_a_folder_with_progress_then_reindex_and_remove(tmp_path):
    gate = threading.Event()
    folder = make_folder(tmp_path)
    app = AssistantApp(FakeBackend(tmp_path, embed_gate=gate))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f3")
        screen = app.screen
        assert isinstance(screen, IndexScreen)
        assert "No index yet" in str(screen.query_one("#index-summary", Static).render())
        screen.query_one("#folder", Input).value = str(folder)
        await pilot.press("enter")
        bar = screen.query_one("#index-progress", ProgressBar)
        # the text is written first (searchable at once); the held embedder keeps the run in its
        # embedding phase, where the bar counts passages given their vector
        assert await wait_until(pilot, lambda: "embedding 0/4 passages" in status(screen))
        assert bar.display and bar.total == 4 and bar.progress == 0 and screen.busy
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("Done: 4 indexed, 0 updated, 0 unchanged")
        assert rows(screen) == [[str(folder), "folder", "4", "4"]]
        # re-index the selected source: nothing changed
        screen.query_one("#sources", DataTable).focus()
        await pilot.press("ctrl+r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "0 indexed, 0 updated, 4 unchanged" in status(screen)
        # remove, after confirming
        await pilot.press("delete")
        await pilot.press("y")
        await pilot.pause()
        assert rows(screen) == []
        assert "Removed" in status(screen)
        await pilot.press("escape")
        assert not isinstance(app.screen, IndexScreen)


async def test_cancel_indexing_keeps_the_committed_batch(tmp_path):
    gate = threading.Event()
    folder = make_folder(tmp_path, files=3)
    app = AssistantApp(FakeBackend(tmp_path, embed_gate=gate))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        screen = app.screen
        screen.query_one("#folder", Input).value = str(folder)
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: "embedding 0/3 passages" in status(screen))
        await pilot.press("escape")  # stop, not back: the screen stays
        assert await wait_until(pilot, lambda: "Stopping" in status(screen)) and app.screen is screen
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("Stopped. What was written is kept")
        assert not screen.busy
        assert [r[2:] for r in rows(screen)] == [["3", "3"]]  # the batch in flight was committed
        await pilot.press("escape")
        assert app.screen is not screen


async def test_bad_folder_is_a_message_not_a_crash(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        screen = app.screen
        screen.query_one("#folder", Input).value = str(tmp_path / "nowhere")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("error: no such folder")
        assert app.is_running


async def test_add_a_passage_file_and_refuse_other_files(tmp_path):
    passages = tmp_path / "passages.jsonl"
    passages.write_text("".join(json.dumps({"id": f"p{i}", "title": f"Heron {i}", "text": f"Heron fact {i}."}) + "\n"
                                for i in range(3)))
    other = tmp_path / "photo.png"
    other.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10")  # binary: no text to index
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        screen = app.screen
        screen.query_one("#folder", Input).value = str(other)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("error: cannot index photo.png:")
        screen.query_one("#folder", Input).value = str(passages)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("Done:")
        assert rows(screen) == [[str(passages.resolve()), rows(screen)[0][1], "3", "3"]]


def test_progress_line_for_folders_and_dumps():
    folder = ProgressView(files_done=40, total_files=40, passages_done=0, rate=0.0, eta=0.0, current="a.md")
    assert folder.line() == "40/40 files · 0 passages searchable · writing the last batch…"
    assert (folder.total, folder.done) == (40, 40)
    dump = ProgressView(files_done=120, total_files=None, passages_done=300, rate=25.4, eta=61.2,
                        current="Heron", bytes_done=3 * 1024 * 1024, total_bytes=12 * 1024 * 1024)
    assert dump.line() == "120 documents · 3.0 MB of 12.0 MB read · 300 passages searchable · 25/s · ETA 61s · Heron"
    assert (dump.total, dump.done) == (12 * 1024 * 1024, 3 * 1024 * 1024)
    embedding = ProgressView(files_done=40, total_files=40, passages_done=700, rate=28.2, eta=13.6, current="",
                             phase="embedding", passages_embedded=320, embed_total=700)
    assert embedding.line() == "embedding 320/700 passages · 28/s · ETA 14s"


async def test_a_folder_and_a_file_go_into_named_collections_as_the_cli_puts_them(tmp_path):
    from assistant.services.collections import list_collections, sources_of

    folder = make_folder(tmp_path, files=2)
    single = tmp_path / "plan.md"
    single.write_text("# Plan\n\nThe otter robot ships in May.\n")
    backend = FakeBackend(tmp_path)
    app = AssistantApp(backend, remember=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f3")
        screen = app.screen
        screen.query_one("#folder", Input).value = str(folder)
        screen.query_one("#collection", Input).value = "work"
        screen.query_one("#collection", Input).focus()
        await pilot.press("enter")  # Enter in the collection field adds the folder
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "(collection work)" in status(screen)
        screen.query_one("#folder", Input).value = str(single)
        screen.query_one("#collection", Input).value = "home"
        await pilot.click("#add")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("Done:") and "(collection home)" in status(screen)
        assert sorted(r[1] for r in rows(screen)) == ["file, in home", "folder, in work"]
        screen.query_one("#sources", DataTable).focus()
        await pilot.press("ctrl+r")  # re-indexing keeps a source in its collection only
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen.query_one("#collection", Input).value = "work!"  # a bad name: one line, nothing indexed
        screen.query_one("#folder", Input).value = str(folder)
        await pilot.click("#add")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(screen).startswith("error: collection name") and "\n" not in status(screen)
    settings = backend.initial_settings()
    assert sources_of(settings, "work") == [str(folder)] and sources_of(settings, "home") == [str(single)]
    assert sorted(c.name for c in list_collections(settings)) == ["home", "work"]  # none left in default
