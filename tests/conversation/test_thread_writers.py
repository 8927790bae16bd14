"""Threads with several writers, damaged files and huge ones (issue 54): two processes adding to
one thread keep every turn; a damaged thread spoils only itself; a thread is read from its
newest turns and its file moves aside past a cap, older turns kept for the export."""
from __future__ import annotations

import json
import multiprocessing
import time

import pytest
from helpers.cli_run import cli, one_error_line  # noqa: F401  (the fixture)
from helpers.fakes import FakeReader, make_context

from assistant.conversation import chat as chat_service
from assistant.conversation import thread_file
from assistant.events.core import Answer
from assistant.conversation.threads import ThreadStore, Turn
from models.config import Settings
from models.errors import AssistantError

TRIES = 20
ASKS = 4  # questions each writer adds per try


def _writer(data_dir: str, name: str, who: str, barrier, errors) -> None:
    """A process asking ASKS questions in the thread through the real path (load, rewrite, append)."""
    try:
        settings = Settings(data_dir=data_dir)

        def slow(prompt: str) -> str:
            time.sleep(0.002)  # the answer takes a moment: the other writer gets in between
            return f"answer for {who}"

        barrier.wait(timeout=30)
        for i in range(ASKS):
            context = make_context(FakeReader(slow))
            events = list(chat_service.ask(f"{who} question {i}, is it?", "direct", settings, thread=name,
                                           context_factory=lambda *_: context))
            assert isinstance(events[-1], Answer)
    except BaseException as exc:  # noqa: BLE001  (said to the parent)
        errors.put(f"{who}: {type(exc).__name__}: {exc}")


def test_two_processes_adding_to_one_thread_keep_every_turn_twenty_times_out_of_twenty(tmp_path):
    fork = multiprocessing.get_context("fork")
    kept = 0
    for attempt in range(TRIES):
        data = tmp_path / f"try{attempt}"
        barrier, errors = fork.Barrier(2), fork.Queue()
        writers = [fork.Process(target=_writer, args=(str(data), "shared", who, barrier, errors))
                   for who in ("first", "second")]
        for p in writers:
            p.start()
        for p in writers:
            p.join(60)
        assert errors.empty(), errors.get()
        assert all(p.exitcode == 0 for p in writers)
        questions = [t.question for t in ThreadStore(data).load("shared", whole=True).turns]
        expected = {f"{who} question {i}, is it?" for who in ("first", "second") for i in range(ASKS)}
        assert len(questions) == 2 * ASKS and set(questions) == expected, (attempt, questions)
        for who in ("first", "second"):  # each writer's own turns in the order it asked them
            mine = [q for q in questions if q.startswith(who)]
            assert mine == [f"{who} question {i}, is it?" for i in range(ASKS)]
        kept += 1
    assert kept == TRIES


def _appender(data_dir: str, who: str, barrier) -> None:
    store = ThreadStore(data_dir, rotate_bytes=600)  # a tiny cap: the file moves aside often
    barrier.wait(timeout=30)
    for i in range(30):
        store.append("busy", Turn(f"{who} {i}", "x" * 50))


def test_rotation_under_two_writers_loses_no_turn(tmp_path):
    fork = multiprocessing.get_context("fork")
    barrier = fork.Barrier(2)
    writers = [fork.Process(target=_appender, args=(str(tmp_path), who, barrier)) for who in "ab"]
    for p in writers:
        p.start()
    for p in writers:
        p.join(60)
    assert all(p.exitcode == 0 for p in writers)
    folder = tmp_path / "threads"
    assert len(thread_file.parts(folder, "busy")) > 3
    assert thread_file.jsonl(folder, "busy").stat().st_size <= 600
    whole = ThreadStore(tmp_path).load("busy", whole=True).turns
    assert sorted(t.question for t in whole) == sorted(f"{w} {i}" for w in "ab" for i in range(30))
    assert ThreadStore(tmp_path).summary("busy").turns == 60


def _good_thread(store: ThreadStore, name: str, turns: int = 2) -> None:
    for i in range(turns):
        store.append(name, Turn(f"{name} question {i}", f"{name} answer {i}"))


DAMAGES = {  # old-style files, read whole or not at all
    "not-json.json": b"{ this is not json",
    "cut-short.json": b'{"name": "cut-short", "turns": [{"question": "a", "answer": "b"}, {"question": "c"',
}
# one turn a line: the intact turns are kept, the damaged lines set aside (issue 65)
DAMAGED_LINES = {
    "binary.jsonl": (bytes(range(256)) * 4, 0),
    "bad-middle.jsonl": (b'{"question": "a", "answer": "b"}\nnot json at all\n{"question": "c", "answer": "d"}\n', 2),
    "wrong-types.jsonl": (b'{"question": 7, "answer": ["b"]}\n', 0),
}


@pytest.mark.parametrize("damaged", sorted(DAMAGED_LINES))
def test_a_thread_with_damaged_lines_keeps_its_intact_turns_beside_two_good_ones(cli, tmp_path, damaged):  # noqa: F811
    data = tmp_path / "data"
    store = ThreadStore(data)
    _good_thread(store, "alpha")
    _good_thread(store, "beta", 3)
    content, intact = DAMAGED_LINES[damaged]
    (data / "threads" / damaged).write_bytes(content)
    name = damaged.split(".")[0]
    code, out, err = cli("chat", "--list")
    assert code == 0, err
    assert "alpha  (2 turns)" in out and "beta  (3 turns)" in out
    line = next(line for line in out.splitlines() if line.startswith(name))
    assert line.startswith(f"{name}  ({intact} turns; ") and f"{name}.jsonl.damaged" in line, line
    code, out, err = cli("chat", name, "--export", "-")
    assert code == 0 and out.count("\n## ") == intact, err


@pytest.mark.parametrize("damaged", sorted(DAMAGES))
def test_a_damaged_thread_beside_two_good_ones_spoils_only_itself(cli, tmp_path, damaged):  # noqa: F811
    data = tmp_path / "data"
    store = ThreadStore(data)
    _good_thread(store, "alpha")
    _good_thread(store, "beta", 3)
    (data / "threads" / damaged).write_bytes(DAMAGES[damaged])
    name = damaged.split(".")[0]

    listed = {s.name: s for s in chat_service.thread_list(Settings(data_dir=data))}
    assert (listed["alpha"].turns, listed["beta"].turns) == (2, 3)
    assert not listed["alpha"].damaged and not listed["beta"].damaged
    assert listed[name].damaged and "damaged" in listed[name].damaged

    code, out, err = cli("chat", "--list")
    assert code == 0, err
    assert "alpha  (2 turns)" in out and "beta  (3 turns)" in out
    line = next(line for line in out.splitlines() if line.startswith(name))
    assert "damaged" in line and "Traceback" not in out + err

    error = one_error_line(cli("chat", name, "--export", "-"))
    assert "is damaged" in error and f"chat --delete {name}" in error
    assert cli("chat", name, "--delete")[0] == 0  # the way out the error names works
    assert name not in cli("chat", "--list")[1]


def test_a_damaged_thread_is_one_line_when_asked_in(cli, tmp_path):  # noqa: F811
    data = tmp_path / "data"
    (data / "threads").mkdir(parents=True)
    (data / "threads" / "broken.json").write_text("[1, 2")
    error = one_error_line(cli("ask", "Who founded it?", "-s", "direct", "--thread", "broken"))
    assert "broken.json is damaged" in error


def test_a_turn_cut_short_by_a_killed_writer_is_left_out_and_the_next_one_kept(tmp_path):
    store = ThreadStore(tmp_path)
    _good_thread(store, "t", 2)
    with open(thread_file.jsonl(tmp_path / "threads", "t"), "ab") as fh:
        fh.write(b'{"question": "half a tu')  # no newline: a write that never ended
    assert [t.question for t in store.load("t").turns] == ["t question 0", "t question 1"]
    store.append("t", Turn("after", "kept"))
    assert [t.question for t in store.load("t", whole=True).turns] == ["t question 0", "t question 1", "after"]
    assert (tmp_path / "threads" / "t.jsonl.damaged").read_bytes() == b'{"question": "half a tu\n'  # kept aside


def test_a_big_thread_is_read_from_its_newest_turns_and_exported_whole(tmp_path):
    store = ThreadStore(tmp_path, read_bytes=16 * 1024, rotate_bytes=256 * 1024)
    for i in range(2000):  # ~1.3 MB of turns: five parts and the current file
        store.append("long", Turn(f"question {i}", f"answer {i} " + "word " * 120))
    folder = tmp_path / "threads"
    assert len(thread_file.parts(folder, "long")) >= 4
    assert all(p.stat().st_size <= 256 * 1024 for p in thread_file.all_files(folder, "long"))
    recent = store.load("long")
    assert recent.older_not_loaded and 0 < len(recent.turns) < 40
    assert recent.turns[-1].question == "question 1999"
    assert [t.question for t in recent.recent()] == [f"question {i}" for i in (1997, 1998, 1999)]
    assert len(store.load("long", whole=True).turns) == 2000
    assert store.summary("long").turns == 2000 and store.summary("long").first_question == "question 0"


def test_an_old_style_thread_file_is_read_streamed_and_converted_on_the_next_turn(tmp_path):
    folder = tmp_path / "threads"
    folder.mkdir()
    turns = [{"question": f"q{i}", "answer": f"a{i}", "citations": [{"label": "notes.md", "title": "Notes"}]}
             for i in range(3000)]
    (folder / "old.json").write_text(json.dumps({"name": "old", "turns": turns}, indent=1))
    store = ThreadStore(tmp_path, read_bytes=8 * 1024)
    recent = store.load("old")
    assert recent.older_not_loaded and recent.turns[-1].question == "q2999" and len(recent.turns) < 200
    assert store.summary("old").turns == 3000 and store.names() == ["old"]
    store.append("old", Turn("new one", "kept"))
    assert not (folder / "old.json").exists()
    whole = store.load("old", whole=True).turns
    assert len(whole) == 3001 and whole[0].citations[0].label == "notes.md" and whole[-1].question == "new one"


def test_the_thread_limits_are_settings_with_ranges(tmp_path):
    from models.config import check_setting

    settings = Settings(data_dir=tmp_path).with_overrides(thread_read_kb=64, thread_file_mb=2)
    store = chat_service.threads(settings)
    assert (store.read_bytes, store.rotate_bytes) == (64 * 1024, 2 * 1024 * 1024)
    for key, bad in (("thread_read_kb", 0), ("thread_file_mb", 0), ("thread_file_mb", 10 ** 6)):
        with pytest.raises(AssistantError, match="out of range"):
            check_setting(key, bad)
