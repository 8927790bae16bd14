"""Copy where OSC 52 may not reach: the escape is always sent, then the system clipboard tool
when one is found and works, else a file; every way ends in a line saying where it went."""
from __future__ import annotations

import subprocess

from tui.clipboard import COPY_FILE, clipboard_tools, copy_text


def _ok(command, input, capture_output, timeout):
    _ok.calls.append((command, input))
    return subprocess.CompletedProcess(command, 0)


def test_a_clipboard_tool_is_used_when_the_session_has_one(tmp_path):
    sent, _ok.calls = [], []
    line = copy_text("answer", sent.append, tmp_path, env={"DISPLAY": ":0"},
                     which=lambda name: f"/usr/bin/{name}" if name == "xclip" else None, run=_ok, platform="linux")
    assert sent == ["answer"] and line == "copied to the clipboard (xclip)"
    assert _ok.calls == [(["xclip", "-selection", "clipboard"], b"answer")]
    assert not (tmp_path / COPY_FILE).exists()


def test_without_a_tool_or_when_it_fails_the_text_is_saved_and_the_file_named(tmp_path):
    sent = []
    line = copy_text("héron", sent.append, tmp_path, env={}, which=lambda name: None, platform="linux")
    assert sent == ["héron"] and str(tmp_path / COPY_FILE) in line
    assert (tmp_path / COPY_FILE).read_text(encoding="utf-8") == "héron"

    def failing(command, **kwargs):
        return subprocess.CompletedProcess(command, 1)

    line = copy_text("again", sent.append, tmp_path, env={"WAYLAND_DISPLAY": "w"}, which=lambda n: n,
                     run=failing, platform="linux")
    assert "saved to" in line and (tmp_path / COPY_FILE).read_text() == "again"


def test_the_tools_tried_follow_the_session():
    assert clipboard_tools({}, "darwin") == [["pbcopy"]]
    assert [t[0] for t in clipboard_tools({"WAYLAND_DISPLAY": "w", "DISPLAY": ":0"}, "linux")] == \
        ["wl-copy", "xclip", "xsel", "clip.exe"]
    assert [t[0] for t in clipboard_tools({}, "linux")] == ["clip.exe"]
