"""Each flow of the app driven with Pilot over fake models (tests/helpers/tui_backend.py)."""
from __future__ import annotations

import dataclasses
import threading
from typing import ClassVar

import pytest
from helpers.tui_backend import MULTI, FakeBackend
from textual.widgets import DataTable, Input, OptionList, ProgressBar, Select, Static

from assistant.events.core import Answer, Detail, Passage, Retrieved, SubQuestion
from tui.app import AnswerPanel, AssistantApp, DetailPanel, QuestionInput, StepTree
from models.errors import AssistantError


def text_of(app, selector) -> str:
    return str(app.query_one(selector, Static).render())


async def ask(app, pilot, question: str, typed: bool = False) -> None:
    box = app.query_one(QuestionInput)
    box.focus()
    if typed:
        await pilot.press(*question)
    else:
        box.value = question
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


async def start_question(app, pilot) -> None:
    """Ask without waiting for the answer (the fake reader is held by its gate)."""
    app.query_one(QuestionInput).value = "Who leads Project Heron?"
    await pilot.press("enter")
    await pilot.pause(0.2)
    assert app.asking


def nodes(tree):
    """Every node of the tree, depth first."""
    stack, out = [tree.root], []
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


async def test_ask_streams_steps_and_answer(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="ra-isf")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        answer = text_of(app, "#answer-text")
        assert "Mira Okafor leads Project Heron." in answer
        assert "1 reader calls · 1 look-ups" in text_of(app, "#answer-stats")
        labels = [str(n.label) for n in nodes(app.query_one(StepTree))]
        # the steps in plain words (issue 50): scores are in a step's detail panel, not the tree
        assert "Not known from memory: looking it up" in labels
        assert "Looked up 5 passages for “Who leads Project Heron?”" in labels
        assert "Kept 1 of 5 passages" in labels
        assert any(label.startswith("✓ heron.md") for label in labels)
        assert any(label.startswith("✗ chess.md") for label in labels)
        assert [label for label in labels if "score" in label or "≥" in label] == []
        assert not any("-00000" in label or "pipeline" in label for label in labels)
        citations = app.query_one("#citations", OptionList)
        assert citations.option_count == 1
        assert "ready" in text_of(app, "#status")


async def test_question_history_and_q_typed_into_the_question(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(app, pilot, "quick question about Heron", typed=True)
        await ask(app, pilot, "Who leads Otter?")
        assert app.is_running  # 'q' typed into the question did not quit
        box = app.query_one(QuestionInput)
        assert box.value == ""
        await pilot.press("up")
        assert box.value == "Who leads Otter?"
        await pilot.press("up")
        assert box.value == "quick question about Heron"
        await pilot.press("down", "down")
        assert box.value == ""


async def test_decomposition_nests_sub_questions_with_their_steps(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="ra-isf")
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(app, pilot, MULTI)
        tree = app.query_one(StepTree)
        decompose = next(n for n in tree.turn.children if str(n.label).startswith("Split the question"))
        subs = list(decompose.children)
        assert [n.data.question for n in subs] == ["Who leads Heron?", "Who leads Otter?"]
        assert all(isinstance(n.data, SubQuestion) for n in subs)
        assert "→ Tomas Lind." in str(subs[1].label)
        inner = [str(c.label) for c in subs[1].children]
        assert inner[0].startswith("Not known from memory") and inner[-1].startswith("Sub-answer: “Tomas Lind.”")
        assert any(isinstance(c.data, Retrieved) and c.data.query == "Who leads Otter?" for c in subs[1].children)
        assert "Mira Okafor and Tomas Lind." in text_of(app, "#answer-text")


async def test_expand_and_collapse_a_step(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="ra-isf")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        tree = app.query_one(StepTree)
        group = next(n for n in tree.turn.children if str(n.label).startswith("Kept 1 of 5"))
        assert not group.is_expanded
        tree.focus()
        tree.move_cursor(group)
        await pilot.press("space")
        assert group.is_expanded and len(group.children) == 5
        await pilot.press("space")
        assert not group.is_expanded
        retrieval = next(n for n in tree.turn.children if isinstance(n.data, Retrieved))
        assert not retrieval.is_expanded  # folded once its passages were judged
        tree.move_cursor(retrieval)
        await pilot.press("f4")
        assert retrieval.is_expanded
        await pilot.press("f4")
        assert not retrieval.is_expanded


async def test_open_a_passage_from_the_tree_and_from_a_citation(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path), spec="ra-isf")
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        tree = app.query_one(StepTree)
        retrieval = next(n for n in tree.turn.children if isinstance(n.data, Retrieved))
        tree.focus()
        tree.move_cursor(retrieval)
        await pilot.press("enter")  # unfolds it
        tree.move_cursor(retrieval.children[3])  # trains.md
        await pilot.press("enter")
        detail = text_of(app, "#detail-text")
        assert "trains.md" in detail and "night train from Vienna to Rome leaves at nine" in detail
        # the numbered citation under the answer opens its passage
        app.query_one("#citations", OptionList).focus()
        await pilot.press("enter")
        await pilot.pause()
        detail = text_of(app, "#detail-text")
        assert "heron.md" in detail and "led by the marine engineer Mira Okafor, who joined in 2021" in detail


async def test_switch_strategy_k_and_depth_without_restarting(tmp_path):
    backend = FakeBackend(tmp_path)
    app = AssistantApp(backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        screen = app.screen
        screen.query_one("#strategy", Select).value = "rag"
        screen.query_one("#k", Input).value = "2"
        screen.query_one("#depth", Input).value = "1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.spec == "rag" and app.settings.k == 2 and app.settings.depth == 1
        assert "strategy rag  k 2  depth 1" in text_of(app, "#status")
        await ask(app, pilot, "Who leads Project Heron?")
        tree = app.query_one(StepTree)
        assert "[rag]" in str(tree.turn.label)
        retrieval = next(n for n in tree.turn.children if isinstance(n.data, Retrieved))
        assert len(retrieval.children) == 2
        assert not any("from memory" in str(n.label) for n in tree.turn.children)


async def test_settings_refuse_bad_values_with_a_message(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        screen = app.screen
        screen.query_one("#options", Input).value = "colour=blue"
        await pilot.press("ctrl+s")
        assert app.screen is screen
        assert "has no option colour" in str(screen.query_one("#settings-error", Static).render())
        screen.query_one("#options", Input).value = ""
        screen.query_one("#k", Input).value = "0"
        await pilot.press("ctrl+s")
        assert "k must be from 1 to 50" in str(screen.query_one("#settings-error", Static).render())
        screen.query_one("#k", Input).value = "3"
        screen.query_one("#reader", Input).value = str(tmp_path / "missing.gguf")
        await pilot.press("ctrl+s")
        assert "reader model not found" in str(screen.query_one("#settings-error", Static).render())
        await pilot.press("escape")
        assert app.screen is not screen and app.settings.k == 5  # unchanged


async def test_missing_index_is_shown_with_what_to_do(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path, require_index=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        answer = text_of(app, "#answer-text")
        assert "error: no index at" in answer and "F3" in answer
        assert "error" in text_of(app, "#status")
        assert app.is_running


async def test_stop_an_answer_while_it_streams(tmp_path):
    gate = threading.Event()
    app = AssistantApp(FakeBackend(tmp_path, reader_gate=gate))
    async with app.run_test(size=(80, 24)) as pilot:
        await start_question(app, pilot)
        await pilot.press("escape")
        assert not app.asking and "stopped" in text_of(app, "#status")
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "stopped" in text_of(app, "#answer-text")  # events after the stop were dropped
        assert not any(str(n.label).startswith("Answer") for n in app.query_one(StepTree).turn.children)


async def test_quit_mid_answer_ends_the_model_call_without_waiting_for_it(tmp_path):
    gate = threading.Event()  # never opened: the fake reader is inside a call until stopped
    backend = FakeBackend(tmp_path, reader_gate=gate)
    app = AssistantApp(backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await start_question(app, pilot)
        stop = app._stop_ask
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not stop.is_set() and app.is_running  # it asks first: the answer is not lost by one key
        await pilot.press("y")
        assert stop.is_set()
        reader = backend.contexts[-1].reader
        # the worker thread outlives the app; its model call must end on the stop, not run on
        assert reader.call_ended.wait(timeout=5) and not reader.gave_up_waiting
    assert not app.is_running


async def test_no_bare_letter_quits(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        for pane in (StepTree, AnswerPanel, DetailPanel):
            app.query_one(pane).focus()
            await pilot.press("q", "x", "ctrl+c")
            await pilot.pause()
            assert app.is_running and app.return_code is None


@dataclasses.dataclass
class OtherStep(Detail):
    """A strategy's own typed step that the app has no special view for."""

    kind: ClassVar[str] = "other.step"
    decision: str = ""
    draft_prob: float = 0.0
    refined_prob: float = 0.0
    feedback: list = dataclasses.field(default_factory=list)


async def test_detail_events_of_other_strategies_show_generically(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        tree = app.query_one(StepTree)
        tree.start("Who leads Heron?")
        feedback = {"id": "p9", "title": "Heron", "text": "Mira Okafor leads Heron.", "path": "heron.md"}
        node = tree.add_event(OtherStep(step=3, summary="kept the refinement (0.71 > 0.52)", decision="refined",
                                        draft_prob=0.52, refined_prob=0.71, feedback=[feedback]))
        assert str(node.label) == "kept the refinement (0.71 > 0.52)"  # the summary, not the kind
        passage_node = node.children[0]
        assert isinstance(passage_node.data, Passage) and passage_node.data.path == "heron.md"
        tree.focus()
        node.expand_all()
        await pilot.pause()
        tree.move_cursor(node)
        await pilot.pause()
        detail = text_of(app, "#detail-text")
        assert "draft prob: 0.52" in detail and "{" not in detail  # a formatted view, not JSON
        tree.move_cursor(passage_node)
        await pilot.pause()
        assert "Mira Okafor leads Heron." in text_of(app, "#detail-text")


async def test_default_pipeline_nests_its_stages_and_shows_the_refeed_decision(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))  # the app's default strategy: the pipeline
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        tree = app.query_one(StepTree)
        stages = [n for n in tree.turn.children if isinstance(n.data, Detail)]
        # the gate, the judged look-up (no trained judge here: the top k), ReFeed's check
        assert [str(n.label).split(":")[0] for n in stages] == ["Step 1", "Step 2", "Step 3"]
        assert str(stages[0].children[0].label).startswith("Not known from memory")
        refeed = {n.data.kind: n for n in stages[2].children if isinstance(n.data, Detail)}
        assert set(refeed) == {"refeed.drafts", "refeed.feedback", "refeed.decision"}
        decision = refeed["refeed.decision"]
        # the fake reader revises to the same words: no "kept the refinement" claim
        assert str(decision.label) == ("Checked the draft against 5 passages; the revision says the same, "
                                       "so the answer stands")
        tree.focus()
        tree.move_cursor(decision)
        await pilot.pause()
        detail = text_of(app, "#detail-text")
        assert "Draft: Mira Okafor leads Project Heron.  (confidence 0.60)" in detail and "{" not in detail
        answer = next(n for n in tree.turn.children if isinstance(n.data, Answer))
        assert "then checked against a second look-up" in str(answer.label)
        # a feedback passage opens with its full text, though the event only carries its id
        feedback = refeed["refeed.feedback"]
        assert str(feedback.label) == "Gathered 5 passages to check the draft against"
        feedback.expand_all()
        await pilot.pause()
        tree.move_cursor(feedback.children[0])
        await pilot.pause()
        detail = text_of(app, "#detail-text")
        assert "heron.md" in detail and "led by the marine engineer Mira Okafor" in detail


async def test_number_keys_open_the_answers_sources(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(app, pilot, "Who leads Project Heron?")
        await pilot.press("2")  # in the question box a digit is typed, not a command
        assert app.query_one(QuestionInput).value == "2"
        app.query_one(QuestionInput).value = ""
        app.query_one(StepTree).focus()
        await pilot.press("1")
        assert "heron.md" in text_of(app, "#detail-text") and "Mira Okafor" in text_of(app, "#detail-text")
        await pilot.press("2")  # only the passage the answer rests on is a source
        await pilot.pause()
        assert "heron.md" in text_of(app, "#detail-text")  # no source 2: a notice, nothing else


async def test_a_stopped_run_does_not_disturb_the_next_question(tmp_path):
    gate = threading.Event()
    backend = FakeBackend(tmp_path, reader_gate=gate)
    app = AssistantApp(backend, spec="ra-isf")
    async with app.run_test(size=(80, 24)) as pilot:
        await start_question(app, pilot)
        await pilot.press("escape")
        app.query_one(QuestionInput).value = "Who leads Otter?"
        await pilot.press("enter")
        gate.set()  # both runs go on; only the second may draw
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Tomas Lind." in text_of(app, "#answer-text")
        assert "Otter" in str(app.query_one(StepTree).turn.label)
        assert "ready" in text_of(app, "#status") and not app.asking


@pytest.mark.parametrize("spec, question, streamed", [
    ("default", "Who leads Project Heron?", ["Mira Okafor leads Project Heron."] * 2),  # draft, refinement
    ("ra-isf", MULTI, ["Mira Okafor and Tomas Lind."]),  # not the sub-questions' answers
])
async def test_answers_of_the_question_stream_but_not_those_of_sub_questions(tmp_path, monkeypatch, spec,
                                                                                 question, streamed):
    generations: dict[int, str] = {}
    original = AnswerPanel.add_token

    def recording(panel, step, text):
        generations[step] = generations.get(step, "") + text
        original(panel, step, text)

    monkeypatch.setattr(AnswerPanel, "add_token", recording)
    app = AssistantApp(FakeBackend(tmp_path), spec=spec)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot, question)
        assert [text.strip() for text in generations.values()] == streamed


async def test_switch_strategy_with_the_keyboard_only(tmp_path):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        names = app.backend.strategy_names()
        await pilot.press("enter")  # opens the strategy list
        await pilot.pause()
        await pilot.press(*["down"] * (names.index("rag") - names.index(app.spec)), "enter")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.spec == "rag" and "strategy rag" in text_of(app, "#status")


async def test_settings_offer_the_installed_readers(tmp_path):
    """The reader is picked from the bundled one and those `assistant models pull|add` recorded;
    a typed file overrides the pick."""
    from helpers.gguf_tiny import chat_reader_header
    from models.downloads.installed import Installed, record

    model = chat_reader_header(tmp_path / "picked.gguf")
    record(tmp_path, Installed("picked", str(model)))
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.press("f2")
        screen = app.screen
        picker = screen.query_one("#installed-reader", Select)
        assert picker.value == "bundled" and [label for label, _ in picker._options][-1] == "picked"
        picker.value = str(model)
        await pilot.pause()
        assert screen.checked_choice().settings.reader == model
        screen.query_one("#reader", Input).value = str(tmp_path / "missing.gguf")
        with pytest.raises(AssistantError):
            screen.checked_choice()
        screen.query_one("#reader", Input).value = ""
        picker.value = "bundled"
        assert screen.checked_choice().settings.reader is None
