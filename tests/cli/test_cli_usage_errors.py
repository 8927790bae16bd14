"""Usage errors of the command line (bad option values, missing arguments, unknown options and
commands) are one line naming the command's help, exit 2, with no boxed usage message and no
traceback (issue 13: every error the user sees is one line)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from assistant.cli import main as cli_main

USAGE_ERRORS = [
    (["ask", "x", "--k", "0"], "Invalid value for '--k'", "assistant ask --help"),
    (["index", "add"], "Missing argument 'path'", "assistant index add --help"),
    (["index", "add", ".", "--max-size", "abc"], "Invalid value for '--max-size'", "assistant index add --help"),
    (["ask", "x", "--no-such-option"], "No such option: --no-such-option", "assistant ask --help"),
    (["index", "status", "--json", "--bogus"], "No such option: --bogus", "assistant index status --help"),
    (["index", "frobnicate"], "No such command 'frobnicate'", "assistant index --help"),
    (["frobnicate"], "No such command 'frobnicate'", "assistant --help"),
    (["index", "wikipedia", "dump.xml", "--limit", "many"], "Invalid value for '--limit'",
     "assistant index wikipedia --help"),
]


def run_in_process(monkeypatch, capsys, args: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["assistant", *args])
    with pytest.raises(SystemExit) as exited:  # run() always exits, as click's standalone mode does
        cli_main.run()
    out, err = capsys.readouterr()
    return exited.value.code, out, err


@pytest.mark.parametrize("args, message, help_command", USAGE_ERRORS)
def test_a_usage_error_is_one_line_naming_the_commands_help(monkeypatch, capsys, args, message, help_command):
    code, out, err = run_in_process(monkeypatch, capsys, args)
    assert code == 2
    assert out == "" or ("--json" in args and '"type": "error"' in out)  # --json: JSON to the end
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err
    assert err.rstrip("\n").endswith(f"(see {help_command})"), err
    for box_or_trace in ("Usage:", "╭", "│", "Traceback", "Try '"):
        assert box_or_trace not in err, err


def test_help_and_a_group_without_command_still_show_the_help(monkeypatch, capsys):
    code, out, err = run_in_process(monkeypatch, capsys, ["index", "status", "--help"])
    assert code == 0 and "--json" in out and "error" not in err
    code, out, err = run_in_process(monkeypatch, capsys, ["index"])
    assert code == 2 and "add" in out + err and "error:" not in out + err


def test_the_real_entry_point_prints_one_line(tmp_path):
    env = dict(os.environ, ASSISTANT_CONFIG=os.devnull, ASSISTANT_DATA_DIR=str(tmp_path / "data"))
    for args, message, help_command in USAGE_ERRORS[:3]:
        result = subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True,
                                env=env, cwd=tmp_path, timeout=60)
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        assert result.stderr == f"{result.stderr.splitlines()[0]}\n", result.stderr
        assert message in result.stderr and f"(see {help_command})" in result.stderr
