"""The app as a conversation (`assistant tui --thread NAME`): a follow-up rewritten as its own
step, the thread saved and reopened with its turns in the history, exported as Markdown."""
from __future__ import annotations

import json

from helpers.tui_backend import FakeBackend

from assistant.details import QuestionRewritten
from tui.app import AssistantApp, QuestionInput


async def ask(app, pilot, question: str) -> None:
    app.query_one(QuestionInput).value = question
    app.query_one(QuestionInput).focus()
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_a_conversation_is_kept_reopened_and_exported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = AssistantApp(FakeBackend(tmp_path), spec="rag", remember=False, thread="heron")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        await ask(app, pilot, "When did she join?")
        assert any(isinstance(e, QuestionRewritten) for e in app.exchanges[-1].events)
        await pilot.press("f6")
        await pilot.pause()
    saved = json.loads((tmp_path / "threads" / "heron.json").read_text())
    assert [t["question"] for t in saved["turns"]] == ["Who leads Project Heron?", "When did she join?"]
    assert "## 2. When did she join?" in (tmp_path / "heron.md").read_text()

    again = AssistantApp(FakeBackend(tmp_path), spec="rag", remember=False, thread="heron")
    async with again.run_test(size=(100, 30)) as pilot:
        assert [x.question for x in again.exchanges] == ["Who leads Project Heron?", "When did she join?"]
        await ask(again, pilot, "And what does it build?")
        assert len(json.loads((tmp_path / "threads" / "heron.json").read_text())["turns"]) == 3


async def test_without_a_thread_questions_stand_alone(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="rag", remember=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        await ask(app, pilot, "When did she join?")
        assert not any(isinstance(e, QuestionRewritten) for x in app.exchanges for e in x.events)
    assert not (tmp_path / "threads").exists()
