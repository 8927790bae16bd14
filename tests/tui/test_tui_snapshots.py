"""SVG snapshots of the main screens at 60x20, 80x24 and 120x40 (pytest-textual-snapshot).

Deterministic: fake models, a fixed answer time, a pinned index view, no clock, no blinking
cursor. Update after an intended change with `pytest tests/tui/test_tui_snapshots.py --snapshot-update`
and look at the SVGs in tests/__snapshots__/.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui_backend import MULTI, SNAPSHOT_INDEX, FakeBackend

from assistant.events.core import Retrieved
from tui.app import AssistantApp, QuestionInput, StepTree

# error messages name the data folder: a fixed one that does not exist keeps them the same
NOWHERE = Path("/home/user/.local/share/offline-assistant")


def first_retrieval(tree):
    stack = list(tree.root.children)
    while stack:
        node = stack.pop(0)
        if isinstance(node.data, Retrieved):
            return node
        stack.extend(node.children)
    raise AssertionError("no retrieval in the tree")


def asking(question: str, open_passage: int | None = None):
    async def run_before(pilot) -> None:
        app = pilot.app
        app.query_one(QuestionInput).value = question
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        if open_passage is not None:
            tree = app.query_one(StepTree)
            retrieval = first_retrieval(tree)
            tree.focus()
            retrieval.expand()
            await pilot.pause()
            tree.move_cursor(retrieval.children[open_passage])
            await pilot.press("enter")
        await pilot.pause()

    return run_before


SIZES = [(60, 20), (80, 24), (120, 40)]


def indexed(tmp_path, **kwargs) -> FakeBackend:
    """A backend whose status line shows a pinned index (the fake retriever needs none)."""
    return FakeBackend(tmp_path, fixed_index=SNAPSHOT_INDEX, **kwargs)


@pytest.mark.parametrize("size", SIZES)
def test_empty_first_run(snap_compare, tmp_path, size):
    assert not NOWHERE.exists()
    app = AssistantApp(FakeBackend(NOWHERE), state_dir=tmp_path)
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_answered_question(snap_compare, tmp_path, size):
    """The answer with its inline [n] markers and only the sources it rests on."""
    app = AssistantApp(indexed(tmp_path))
    assert snap_compare(app, terminal_size=size, run_before=asking("Who leads Project Heron?"))


@pytest.mark.parametrize("size", SIZES)
def test_transcript_entry(snap_compare, tmp_path, size):
    async def run_before(pilot) -> None:
        await asking("Who leads Project Heron?")(pilot)
        await asking(MULTI)(pilot)
        pilot.app.query_one(StepTree).scroll_home(animate=False)  # the follow-the-run scroll races the dialog
        await pilot.pause()
        await pilot.press("f5")
        await pilot.pause()

    app = AssistantApp(indexed(tmp_path), spec="ra-isf")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(snap_compare, tmp_path, size):
    app = AssistantApp(indexed(tmp_path))
    assert snap_compare(app, terminal_size=size, press=["f1"])


def test_decomposition_at_120x40(snap_compare, tmp_path):
    app = AssistantApp(indexed(tmp_path), spec="ra-isf")
    assert snap_compare(app, terminal_size=(120, 40), run_before=asking(MULTI))


def test_passage_opened_at_80x24(snap_compare, tmp_path):
    app = AssistantApp(indexed(tmp_path))
    assert snap_compare(app, terminal_size=(80, 24), run_before=asking("Who leads Project Heron?", 0))


def test_missing_index_error_at_80x24(snap_compare, tmp_path):
    assert not NOWHERE.exists()
    app = AssistantApp(FakeBackend(NOWHERE, require_index=True), state_dir=tmp_path)
    assert snap_compare(app, terminal_size=(80, 24), run_before=asking("Who leads Project Heron?"))


@pytest.mark.parametrize("size", SIZES)
def test_settings_screen(snap_compare, tmp_path, size):
    app = AssistantApp(indexed(tmp_path))
    assert snap_compare(app, terminal_size=size, press=["f2"])


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_index_screen(snap_compare, tmp_path, size):
    app = AssistantApp(FakeBackend(tmp_path, fixed_index=SNAPSHOT_INDEX))
    assert snap_compare(app, terminal_size=size, press=["f3"])


@pytest.mark.parametrize("size", [(100, 30), (160, 48), (220, 50)])
def test_steps_and_answer_share_the_width(snap_compare, tmp_path, size):
    """Half each at 100 columns; from 140 the answer side gets 3/5, the sources wrap less."""
    app = AssistantApp(indexed(tmp_path))
    assert snap_compare(app, terminal_size=size, run_before=asking("Who leads Project Heron?", 0))


@pytest.mark.parametrize("size", [(100, 30), (160, 48), (220, 50)])
def test_a_conversation_folds_earlier_turns(snap_compare, tmp_path, size):
    """Two turns: the first folded to its question and answer, the follow-up's rewrite its first step."""
    async def run_before(pilot) -> None:
        await asking("Who leads Project Heron?")(pilot)
        await asking("When did she join?")(pilot)

    app = AssistantApp(indexed(tmp_path), spec="rag", remember=False)
    assert snap_compare(app, terminal_size=size, run_before=run_before)
