"""A damaged thread costs only what is damaged (issue 65): with garbage appended after its intact
turns, a thread's turns are read, listed, exported and continued; the damaged lines are moved
to NAME.jsonl.damaged beside it and named in one line, never dropped; every count of turns is
the export's; a turn past the cap is refused when written."""
from __future__ import annotations

import json
import random

import pytest
from helpers.cli_run import cli  # noqa: F401  (the fixture)

from assistant.conversation import thread_file, thread_lines
from assistant.conversation.threads import ThreadStore, Turn
from models.errors import AssistantError

INTACT = 17


def garbage(size: int = 4096, seed: int = 65) -> bytes:
    return random.Random(seed).randbytes(size)


def lines(data: bytes) -> list[bytes]:
    """The non-blank lines, sorted: what no reading may lose (blank lines hold nothing)."""
    return sorted(line for line in data.split(b"\n") if line.strip())


def thread_with_garbage(data, name: str = "heron", tail: bytes | None = None):
    store = ThreadStore(data)
    for i in range(INTACT):
        store.append(name, Turn(f"question {i}?", f"answer {i}"))
    path = thread_file.jsonl(data / "threads", name)
    with open(path, "ab") as fh:
        fh.write(garbage() if tail is None else tail)
    return store, path


def test_garbage_after_intact_turns_costs_only_itself(tmp_path):
    store, path = thread_with_garbage(tmp_path)
    before = path.read_bytes()
    whole = store.load("heron", whole=True)
    assert [t.question for t in whole.turns] == [f"question {i}?" for i in range(INTACT)]
    aside = thread_file.set_aside_file(tmp_path / "threads", "heron")
    assert str(aside) in whole.set_aside and "damaged line" in whole.set_aside
    kept = aside.read_bytes()
    # every byte is somewhere: the intact lines in the thread, the rest beside it
    intact = path.read_bytes()
    assert len(intact.splitlines()) == INTACT
    assert lines(before) == lines(intact + kept)
    summary = store.summary("heron")
    assert summary.turns == INTACT and summary.first_question == "question 0?"
    assert str(aside) in summary.set_aside
    store.append("heron", Turn("one more?", "yes"))
    assert len(store.load("heron", whole=True).turns) == INTACT + 1 == store.summary("heron").turns


def test_the_cli_lists_exports_and_continues_a_thread_with_garbage(cli, tmp_path):  # noqa: F811
    data = tmp_path / "data"
    thread_with_garbage(data)
    code, out, err = cli("chat", "--list")
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.startswith("heron  "))
    assert line.startswith(f"heron  ({INTACT} turns; ") and "heron.jsonl.damaged" in line, line
    target = tmp_path / "heron.md"
    code, out, err = cli("chat", "heron", "--export", str(target))
    assert code == 0 and f"({INTACT} turns)" in out, err
    assert target.read_text().count("\n## ") == INTACT
    code, out, err = cli("ask", "And then?", "-s", "direct", "--thread", "heron")
    assert code == 0, err
    code, out, err = cli("chat", "--list")
    assert f"heron  ({INTACT + 1} turns; damaged lines kept in " in out


def test_a_bad_line_in_the_middle_keeps_the_order_of_the_others(tmp_path):
    folder = tmp_path / "threads"
    folder.mkdir()
    (folder / "mid.jsonl").write_bytes(b'{"question": "a", "answer": "b"}\nnot json\n'
                                       b'{"question": 7, "answer": ["b"]}\n{"question": "c", "answer": "d"}\n')
    store = ThreadStore(tmp_path)
    assert [t.question for t in store.load("mid").turns] == ["a", "c"]
    assert (folder / "mid.jsonl.damaged").read_bytes() == b'not json\n{"question": 7, "answer": ["b"]}\n'
    assert store.summary("mid").turns == 2


def test_a_field_a_newer_version_added_is_no_damage(tmp_path):
    folder = tmp_path / "threads"
    folder.mkdir()
    (folder / "newer.jsonl").write_bytes(b'{"question": "a", "answer": "b", "mood": "odd"}\n')
    thread = ThreadStore(tmp_path).load("newer")
    assert [t.question for t in thread.turns] == ["a"] and not thread.set_aside


def test_a_lone_surrogate_in_a_turn_is_set_aside(tmp_path):
    folder = tmp_path / "threads"
    folder.mkdir()
    (folder / "odd.jsonl").write_bytes(b'{"question": "a", "answer": "b"}\n{"question": "\\ud800", "answer": "x"}\n')
    store = ThreadStore(tmp_path)
    assert [t.question for t in store.load("odd", whole=True).turns] == ["a"]
    assert b"ud800" in (folder / "odd.jsonl.damaged").read_bytes()


def test_a_write_cut_short_is_set_aside_by_the_next_turn_and_a_turn_without_its_newline_kept(tmp_path):
    store, path = thread_with_garbage(tmp_path, "cut", tail=b'{"question": "half a tu')
    assert len(store.load("cut").turns) == INTACT  # a tail read skips it
    store.append("cut", Turn("after", "kept"))
    assert (tmp_path / "threads" / "cut.jsonl.damaged").read_bytes() == b'{"question": "half a tu\n'
    assert [t.question for t in store.load("cut", whole=True).turns][-2:] == [f"question {INTACT - 1}?", "after"]
    with open(path, "ab") as fh:
        fh.write(b'{"question": "no newline", "answer": "still a turn"}')
    store.append("cut", Turn("next", "kept"))
    assert [t.question for t in store.load("cut", whole=True).turns][-2:] == ["no newline", "next"]


def test_a_turn_past_the_cap_is_refused_when_written(tmp_path):
    store = ThreadStore(tmp_path)
    store.append("big", Turn("small?", "yes"))
    with pytest.raises(AssistantError, match="past a thread turn's 1 MB: not saved"):
        store.append("big", Turn("huge?", "word " * (thread_file.TURN_CAP_BYTES // 5 + 1)))
    assert store.summary("big").turns == 1


def test_a_line_too_long_to_hold_is_walked_and_set_aside_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(thread_lines, "MAX_TURN_BYTES", 1000)
    monkeypatch.setattr(thread_lines, "CHUNK", 256)  # the long line spans many chunks
    folder = tmp_path / "threads"
    folder.mkdir()
    long_line = json.dumps({"question": "long?", "answer": "x" * 5000}).encode()
    (folder / "long.jsonl").write_bytes(b'{"question": "a", "answer": "b"}\n' + long_line + b'\n'
                                        + b'{"question": "c", "answer": "d"}\n')
    with open(folder / "long.jsonl", "rb") as fh:
        lines = list(thread_lines.scan(fh))
    assert [line.data is None for line in lines] == [False, True, False]
    store = ThreadStore(tmp_path)
    assert [t.question for t in store.load("long", whole=True).turns] == ["a", "c"]
    assert (folder / "long.jsonl.damaged").read_bytes() == long_line + b"\n"


def test_deleting_a_thread_deletes_its_damaged_lines_too(tmp_path):
    store, _ = thread_with_garbage(tmp_path)
    store.load("heron", whole=True)
    store.delete("heron")
    assert not list((tmp_path / "threads").glob("heron.*"))
