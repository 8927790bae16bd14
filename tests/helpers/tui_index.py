"""Driving the app's index screen in Pilot tests: a notes folder to add, the screen's status
line, waiting for a condition, and adding a folder through the screen."""
from __future__ import annotations

from textual.widgets import Input, Static

from tui.index_screen import IndexScreen


def make_folder(root, files=4):
    folder = root / "notes"
    folder.mkdir()
    for i in range(files):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nThe heron number {i} nests by the river.\n")
    return folder


def status(screen):
    return str(screen.query_one("#index-status", Static).render())


async def wait_until(pilot, condition, tries=600):  # 30 s: a loaded 2-core machine runs the app slowly
    for _ in range(tries):
        if condition():
            return True
        await pilot.pause(0.05)
    return condition()


async def index_folder_in_app(app, pilot, folder):
    """Open the index screen (F3), add `folder` and wait for the run to end; returns the screen."""
    await pilot.press("f3")
    screen = app.screen
    assert isinstance(screen, IndexScreen)
    screen.query_one("#folder", Input).value = str(folder)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()
    return screen
