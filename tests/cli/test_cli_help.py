"""`--help` reads well at 80 columns: no `<bool>`/`<str>` or `{question}` placeholders, no line
wider than the terminal, and an example under every command."""
from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from assistant.cli.main import app


def _commands():
    from typer.main import get_command

    root = get_command(app)
    for name, command in root.commands.items():
        if hasattr(command, "commands"):
            yield from ([name, sub] for sub in command.commands)
        else:
            yield [name]


@pytest.mark.parametrize("path", list(_commands()), ids=" ".join)
def test_each_commands_help_is_plain_fits_80_columns_and_has_an_example(path):
    result = CliRunner().invoke(app, [*path, "--help"], terminal_width=80, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert not re.search(r"<(bool|str|int|path|float)[^>]*>|\{\w+\}", text), text
    assert max(len(line) for line in text.splitlines()) <= 80, text
    if path != ["tui"]:
        assert "Example" in text, text
