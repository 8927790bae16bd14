"""Conversations at the command line: `ask --thread`, `assistant chat` (the prompt loop, --list,
--export, --delete), and `ask` answered by a running server."""
import io
import json
import sys

import pytest
from helpers.cli_run import cli, one_error_line  # noqa: F401  (the fixture)
from helpers.fakes import FakeReader, make_context
from helpers.live_server import live_server

from assistant.conversation.threads import ThreadStore


def clinic_reader(settings=None):
    def reply(prompt):
        if "Rewritten question:" in prompt:
            return "Who founded the Harbor Clinic?"
        return "Ada Lane" if "Who founded" in prompt else "The Harbor Clinic"
    return FakeReader(reply)


@pytest.fixture
def clinic(cli, monkeypatch):
    from models import registry

    monkeypatch.setattr(registry, "get_reader", clinic_reader)
    return cli


def test_ask_in_a_thread_rewrites_the_follow_up_and_saves_both_turns(clinic, tmp_path):
    assert clinic("ask", "Which clinic is by the river?", "-s", "direct", "--thread", "trip")[0] == 0
    code, out, _ = clinic("ask", "Who founded it?", "-s", "direct", "--thread", "trip", "--trace")
    assert code == 0
    assert "Asked as: “Who founded the Harbor Clinic?”" in out and "Ada Lane" in out
    saved = ThreadStore(tmp_path / "data").load("trip")
    assert [t.standalone for t in saved.turns] == ["", "Who founded the Harbor Clinic?"]


def test_a_question_outside_a_thread_is_not_rewritten(clinic):
    clinic("ask", "Which clinic is by the river?", "-s", "direct", "--thread", "trip")
    code, out, _ = clinic("ask", "Who founded it?", "-s", "direct", "--trace")
    assert code == 0 and "Asked as" not in out


def test_a_bad_thread_name_is_one_line(clinic):
    assert "thread name" in one_error_line(clinic("ask", "Hi there?", "-s", "direct", "--thread", "../x"))


def test_chat_holds_a_conversation_and_exports_it(clinic, monkeypatch, tmp_path):
    target = tmp_path / "trip.md"
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"Which clinic is by the river?\nWho founded it?\n"
                                                  f"/export {target}\n/quit\n"))
    code, out, _ = clinic("chat", "trip", "-s", "direct")
    assert code == 0 and "Ada Lane" in out
    markdown = target.read_text()
    assert "## 2. Who founded it?" in markdown and "*Asked as:* Who founded the Harbor Clinic?" in markdown

    # reopened later: the earlier turns are there, and a follow-up still understood
    monkeypatch.setattr(sys, "stdin", io.StringIO("And who runs it?\n"))
    code, out, _ = clinic("chat", "trip", "-s", "direct")
    assert "2 earlier turns" in out
    code, out, _ = clinic("chat", "--list")
    assert "trip  (3 turns)" in out
    code, out, _ = clinic("chat", "trip", "--export", "-")
    assert out.startswith("# trip") and "## 3. And who runs it?" in out
    assert clinic("chat", "trip", "--delete")[0] == 0
    assert "no thread named trip" in one_error_line(clinic("chat", "trip", "--export", "-"))


def test_ask_uses_a_running_server_and_local_skips_it(cli, tmp_path):
    from models.config import Settings

    data = tmp_path / "data"
    served = FakeReader(lambda prompt: "from the server")
    with live_server(lambda s, st: make_context(reader=served), data) as url:
        index = Settings(data_dir=data).index_path
        data.mkdir(parents=True, exist_ok=True)
        (data / "server.json").write_text(json.dumps({"url": url, "pid": 0, "index": str(index)}))
        code, out, _ = cli("ask", "What is the capital?", "-s", "direct")
        assert code == 0 and "from the server" in out
        code, out, _ = cli("ask", "What is the capital?", "-s", "direct", "--local")
        assert "Paris" in out and "from the server" not in out
