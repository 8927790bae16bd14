"""The app with the real models: the bundled SmolLM2 reader and MiniLM embedder over a tiny
folder the test writes, indexed from the index screen and then asked about.

Asserts structure (a retrieval over the folder's passages, a streamed answer with sources),
not what a 135M reader answers.
"""
from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input, OptionList, Static

from assistant.events.core import Answer, Retrieved
from models.config import Settings
from tui.app import AssistantApp, QuestionInput, StepTree
from tui.backend import Backend

from helpers.docs_folder import write_docs
from helpers.tui_index import index_folder_in_app

pytestmark = pytest.mark.real_models

DOCS = {
    "heron.md": "# Project Heron\n\nProject Heron builds a solar-powered weather buoy. It is led by the marine "
                "engineer Mira Okafor.\n",
    "garden.txt": "The community garden grows tomatoes, beans and pumpkins. Watering happens at dawn.\n",
}


def nodes(tree):
    stack, out = [tree.root], []
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


async def test_index_a_folder_then_ask_with_the_bundled_models(tmp_path):
    folder = write_docs(tmp_path / "docs", DOCS)
    settings = Settings(data_dir=tmp_path / "data", k=2, max_answer_tokens=24, max_reader_calls=10)
    app = AssistantApp(Backend(settings=settings), spec="rag")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await index_folder_in_app(app, pilot, folder)
        assert str(screen.query_one("#index-status", Static).render()).startswith("Done: 2 indexed")
        table = screen.query_one("#sources", DataTable)
        assert [str(c) for c in table.get_row_at(0)][2:] == ["2", "2"]
        await pilot.press("escape")
        assert app.screen is not screen

        app.query_one(QuestionInput).value = "Who leads Project Heron?"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = str(app.query_one("#status", Static).render())
        assert "ready" in status, str(app.query_one("#answer-text", Static).render())
        tree = app.query_one(StepTree)
        retrievals = [n.data for n in nodes(tree) if isinstance(n.data, Retrieved)]
        assert retrievals and {p.path for p in retrievals[0].passages} <= set(DOCS)
        answer = next(n.data for n in nodes(tree) if isinstance(n.data, Answer))
        assert answer.text.strip() and answer.text in str(app.query_one("#answer-text", Static).render())
        # the bundled SmolLM2 may answer with words no passage holds: then nothing is cited
        assert app.query_one("#citations", OptionList).option_count == len(answer.citations)
        assert {p.id for p in answer.citations} <= set(answer.passages_read) and answer.passages_read
