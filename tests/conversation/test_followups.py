"""Threads and follow-ups: the rewrite step (when it asks the reader, what it passes on), the
thread files (save, list, reopen, delete, Markdown export) and the follow-up set's shape."""
import json
from pathlib import Path

import pytest
from helpers.fakes import FakeReader

from assistant.events.core import Answer, Passage
from assistant.conversation.followup import needs_rewrite, rewrite, rewrite_messages
from assistant.conversation.threads import Thread, ThreadStore, Turn
from models.errors import AssistantError

SET = Path(__file__).resolve().parents[1] / "data" / "followups.jsonl"
HISTORY = [Turn("Which film was shot near Leland in 1986?", "Maximum Overdrive [1]")]


def test_a_follow_up_is_rewritten_by_the_reader_and_a_standalone_question_is_not():
    reader = FakeReader(lambda prompt: "Who directed Maximum Overdrive?")
    assert rewrite(reader, HISTORY, "Who directed it?") == "Who directed Maximum Overdrive?"
    assert rewrite(reader, HISTORY, "What is the capital of Scotland in the United Kingdom?") == \
        "What is the capital of Scotland in the United Kingdom?"
    assert rewrite(reader, [], "Who directed it?") == "Who directed it?"  # nothing to refer to
    assert reader.stats.calls == 1


def test_the_rewrite_prompt_holds_the_recent_turns_without_markers():
    prompt = rewrite_messages(HISTORY, "Who directed it?")[-1]["content"]
    assert "Maximum Overdrive" in prompt and "[1]" not in prompt and prompt.rstrip().endswith("Rewritten question:")


def test_an_empty_runaway_or_answering_rewrite_falls_back_to_the_question_with_its_context():
    for bad in ("", "x " * 400 + "?", "Maximum Overdrive was directed by Stephen King."):
        fallback = rewrite(FakeReader(lambda p, bad=bad: bad), HISTORY, "Who directed it?")
        assert fallback.startswith("Who directed it? (following “Which film was shot near Leland in 1986?”")
        assert "Maximum Overdrive" in fallback and "[1]" not in fallback


def test_threads_are_saved_listed_reopened_exported_and_deleted(tmp_path):
    store = ThreadStore(tmp_path)
    thread = store.load("trip", create=True)
    answer = Answer(text="Maximum Overdrive", marked_text="Maximum Overdrive [1]",
                    citations=[Passage(id="p1", text="...", title="Leland", path="films/leland.md")])
    thread.turns.append(Turn.from_answer("Which film?", "Which film?", answer))
    thread.turns.append(Turn.from_answer("Who directed it?", "Who directed Maximum Overdrive?", answer))
    store.save(thread)
    assert store.names() == ["trip"]
    again = store.load("trip")
    assert [t.standalone for t in again.turns] == ["", "Who directed Maximum Overdrive?"]
    markdown = again.to_markdown()
    assert "## 2. Who directed it?" in markdown and "1. films/leland.md" in markdown
    store.delete("trip")
    with pytest.raises(AssistantError, match="no thread named trip"):
        store.load("trip")


@pytest.mark.parametrize("name", ["", "../up", "a/b", "-x", "x" * 65])
def test_a_bad_thread_name_is_refused(tmp_path, name):
    with pytest.raises(AssistantError, match="bad thread name"):
        ThreadStore(tmp_path).load(name, create=True)


def test_a_damaged_thread_file_is_one_line(tmp_path):
    (tmp_path / "threads").mkdir()
    (tmp_path / "threads" / "bad.json").write_text("{")
    with pytest.raises(AssistantError, match="damaged"):
        ThreadStore(tmp_path).load("bad")


def test_the_follow_up_set_has_thirty_two_turn_conversations_that_refer_back():
    rows = [json.loads(line) for line in SET.read_text().splitlines()]
    assert len(rows) >= 30 and len({r["id"] for r in rows}) == len(rows)
    assert sum(r["source"] == "examples/docs" for r in rows) >= 5
    assert {r["source"] for r in rows} <= {"examples/docs", "hotpotqa_train_100.hipporag.json"}  # training only
    for r in rows:
        assert needs_rewrite(r["turn2"], [Turn(r["turn1"], r["answer1"])]), r["turn2"]
        assert not any(x.lower() in r["turn2"].lower() for x in r["referent"]), r["id"]  # turn 2 does not name it
        assert any(x.lower() in r["standalone"].lower() for x in r["referent"]), r["id"]
