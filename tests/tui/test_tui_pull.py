"""Pulling a catalog reader from the app's settings (issue 33): the download runs in a child process
(assistant/services/pull.py) fed by a stand-in hub on 127.0.0.1, shows a progress bar, is cancelled
by Cancel (the part kept, the next pull resumes it with a Range request), and offline fails with
the one line `assistant models pull` gives, shown in the screen."""
from __future__ import annotations

import os

import pytest
from textual.widgets import Button, ProgressBar, Select, Static

from helpers import fake_hub
from helpers.gguf_tiny import chat_reader_header
from helpers.tui_backend import FakeBackend
from helpers.tui_index import wait_until

from assistant.services import pull as pull_service
from models.downloads.catalog import CatalogEntry
from models.downloads.catalog_fit import Placed
from models.downloads.installed import load_installed
from models.downloads.pull import pull_entry
from models.errors import Cancelled, OfflineError
from tui.app import AssistantApp
from tui.pull_panel import PullPanel, entry_label
from tui.settings_screen import SettingsScreen

REPO, FILE = "tester/Tiny-GGUF", "tiny-chat-q4.gguf"
ENTRY = CatalogEntry(name="tiny-chat", role="reader", repo=REPO, files=(FILE,), size_gb=0.01, ram_gb=0.1,
                     licence="apache-2.0", quality="test", good_for="tests")
STALL = 3 * 2**20


@pytest.fixture
def hub(tmp_path, monkeypatch):
    data = chat_reader_header(tmp_path / "header.gguf").read_bytes() + os.urandom(6 * 2**20)
    state = fake_hub.FakeHub(files={f"{REPO}/{FILE}": fake_hub.HubFile(data)})
    server = fake_hub.start(state)
    monkeypatch.setenv("HF_ENDPOINT", state.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("ASSISTANT_USER_HF_HUB_OFFLINE", raising=False)
    yield state
    state.release.set()
    server.shutdown()


def test_a_pull_reports_progress_and_a_cancel_keeps_the_part_for_a_resume(tmp_path, hub):
    settings = FakeBackend(tmp_path).initial_settings()
    hub.stall_at = STALL
    seen = []

    def stop_once_stalled() -> bool:
        return any(what.startswith("download") and done >= STALL for what, done, _ in seen)

    with pytest.raises(Cancelled, match="pulling again resumes"):
        pull_service.pull(settings, ENTRY, on_progress=lambda *p: seen.append(p), should_stop=stop_once_stalled)
    assert not load_installed(settings.data_dir)
    hub.stall_at = None
    hub.release.set()
    seen.clear()
    model = pull_service.pull(settings, ENTRY, on_progress=lambda *p: seen.append(p))
    assert model.name == "tiny-chat" and model.source == "pulled" and os.path.getsize(model.path) == len(
        hub.files[f"{REPO}/{FILE}"].data)
    assert hub.ranges() and hub.ranges()[-1].startswith(f"bytes={STALL}")  # resumed, not started again
    assert any(what.startswith("check") for what, _, _ in seen)  # the hash check is shown too
    assert [m.name for m in load_installed(settings.data_dir)] == ["tiny-chat"]


def test_offline_the_pull_fails_with_the_line_models_pull_gives(tmp_path, hub, monkeypatch):
    settings = FakeBackend(tmp_path).initial_settings()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OfflineError) as cli_error:
        pull_entry(ENTRY, settings.data_dir, offline=True)
    with pytest.raises(OfflineError) as app_error:
        pull_service.pull(settings, ENTRY)
    assert str(app_error.value) == str(cli_error.value) and "\n" not in str(app_error.value)
    assert not hub.log  # nothing was asked of the hub


def status(screen) -> str:
    return str(screen.query_one("#pull-status", Static).render())


async def open_settings(app, pilot):
    await pilot.press("f2")
    await pilot.pause()
    assert isinstance(app.screen, SettingsScreen)
    return app.screen


async def test_settings_pull_with_a_bar_cancel_then_pull_and_pick(tmp_path, hub):
    backend = FakeBackend(tmp_path)
    backend.pullable = [Placed(ENTRY, True, "fits")]
    hub.stall_at = STALL
    app = AssistantApp(backend, remember=False)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot)
        panel = screen.query_one(PullPanel)
        assert screen.query_one("#pull-choice", Select).value == "tiny-chat"
        assert entry_label(backend.pullable[0]) == "tiny-chat · 0.01 GB · fits · tests"
        screen.query_one("#pull", Button).press()
        bar = screen.query_one("#pull-progress", ProgressBar)
        assert await wait_until(pilot, lambda: (bar.progress or 0) >= STALL, tries=200)
        assert screen.query_one("#pull-running").display and "download tiny-chat-q4.gguf: 3 MB of 6 MB" in status(screen)
        screen.query_one("#pull-cancel", Button).press()
        assert await wait_until(pilot, lambda: not panel.busy, tries=200)
        assert "cancelled" in status(screen) and not screen.query_one("#pull-running").display
        assert isinstance(app.screen, SettingsScreen)  # Cancel stopped the pull, not the settings
        hub.stall_at = None
        hub.release.set()
        screen.query_one("#pull", Button).press()
        assert await wait_until(pilot, lambda: "pulled tiny-chat" in status(screen), tries=400)
        # the pick-list is updated by the settings screen's own handler, a message later (a busy CPU
        # showed the status before it)
        picker = screen.query_one("#installed-reader", Select)
        assert await wait_until(pilot, lambda: str(picker.value).endswith(FILE), tries=200), picker.value
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert str(app.settings.reader).endswith(FILE)


async def test_settings_pull_offline_shows_the_one_line(tmp_path, hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    backend = FakeBackend(tmp_path)
    backend.pullable = [Placed(ENTRY, True, "fits")]
    app = AssistantApp(backend, remember=False)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_settings(app, pilot)
        screen.query_one("#pull", Button).press()
        assert await wait_until(pilot, lambda: status(screen).startswith("✗"), tries=200)
        line = status(screen)
        assert line.startswith("✗ offline (HF_HUB_OFFLINE is set): on a machine with internet download")
        assert "Traceback" not in line
