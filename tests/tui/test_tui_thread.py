"""The app as a conversation: every question a turn of the current thread (the same thread files as
`assistant chat`), earlier turns folded in the step tree, a follow-up rewritten as its own step,
the thread reopened after a restart (by itself or from the F7 pick-list), Ctrl+N a new one, F6 the
Markdown export."""
from __future__ import annotations


from helpers.tui_backend import FakeBackend

from assistant.events.details import QuestionRewritten
from assistant.conversation.threads import ThreadStore, name_from_question
from tui.app import AnswerPanel, AssistantApp, QuestionInput
from tui.steps import StepTree
from tui.threads_screen import ThreadsScreen


async def ask(app, pilot, question: str) -> None:
    app.query_one(QuestionInput).value = question
    app.query_one(QuestionInput).focus()
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def saved_questions(tmp_path, name: str) -> list[str]:
    return [t.question for t in ThreadStore(tmp_path).load(name).turns]


async def test_every_question_is_a_turn_and_earlier_turns_fold(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="rag", state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.sub_title == "new conversation"
        await ask(app, pilot, "Who leads Project Heron?")
        await ask(app, pilot, "When did she join?")
        tree = app.query_one(StepTree)
        assert [str(t.label).split("  [")[0] for t in tree.turns] == ["? Who leads Project Heron?",
                                                                       "? When did she join?"]
        assert not tree.turns[0].is_expanded and tree.turns[1].is_expanded
        assert "→ Mira Okafor" in str(tree.turns[0].label)  # a folded turn keeps its answer in short
        rewrite = [n for n in tree.turns[1].children if isinstance(n.data, QuestionRewritten)]
        assert rewrite and "Asked as" in str(rewrite[0].label)
        tree.turns[0].expand()  # still all there, one key away
        assert any("Looked up" in str(n.label) for n in tree.turns[0].children)
    assert app.thread_name == "who-leads-project-heron"
    assert saved_questions(tmp_path, app.thread_name) == ["Who leads Project Heron?", "When did she join?"]


async def test_a_restart_shows_the_earlier_turns_again(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="rag", state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        await ask(app, pilot, "When did she join?")
    again = AssistantApp(FakeBackend(tmp_path), spec="rag", state_dir=tmp_path)
    async with again.run_test(size=(100, 30)) as pilot:
        tree = again.query_one(StepTree)
        assert [x.question for x in again.exchanges] == ["Who leads Project Heron?", "When did she join?"]
        assert len(tree.turns) == 2 and not any(t.is_expanded for t in tree.turns)
        assert again.query_one(AnswerPanel).answer.text.startswith("Mira Okafor")  # the last answer shows
        await ask(again, pilot, "And what does it build?")
        assert any(isinstance(e, QuestionRewritten) for e in again.exchanges[-1].events)
        assert len(tree.turns) == 3
    assert saved_questions(tmp_path, "who-leads-project-heron")[-1] == "And what does it build?"


async def test_new_thread_and_the_pick_list_reopen_a_saved_one(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="rag", remember=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.thread_name is None and not app.exchanges and not app.query_one(StepTree).turns
        await ask(app, pilot, "What does Project Otter build?")
        assert not any(isinstance(e, QuestionRewritten) for e in app.exchanges[0].events)  # a fresh start
        assert app.thread_name == "what-does-project-otter-build"
        await pilot.press("f7")
        await pilot.pause()
        assert isinstance(app.screen, ThreadsScreen)
        names = [str(o.id) for o in app.screen.query_one("#threads").options]
        assert sorted(names) == ["what-does-project-otter-build", "who-leads-project-heron"]
        app.screen.dismiss("who-leads-project-heron")
        await pilot.pause()
        assert app.thread_name == "who-leads-project-heron"
        assert [x.question for x in app.exchanges] == ["Who leads Project Heron?"]


async def test_the_cli_thread_is_opened_and_exported_where_it_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = AssistantApp(FakeBackend(tmp_path), spec="rag", remember=False, thread="heron")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f6")  # nothing yet: says so, writes nothing
        await pilot.pause()
        assert not (tmp_path / "heron.md").exists()
        await ask(app, pilot, "Who leads Project Heron?")
        await ask(app, pilot, "When did she join?")
        await pilot.press("f6")
        await pilot.pause()
        assert any(str(tmp_path / "heron.md") in str(n.message) for n in app._notifications)
    assert "## 2. When did she join?" in (tmp_path / "heron.md").read_text()
    assert saved_questions(tmp_path, "heron") == ["Who leads Project Heron?", "When did she join?"]


def test_names_from_questions_are_unique_and_valid():
    assert name_from_question("Who leads Heron?") == "who-leads-heron"
    assert name_from_question("Who leads Heron?", {"who-leads-heron"}) == "who-leads-heron-2"
    assert name_from_question("¿?") == "conversation"
    long = name_from_question("word " * 40)
    assert len(long) <= 40 and ThreadStore(__import__("pathlib").Path("/nonexistent"))._path(long)
