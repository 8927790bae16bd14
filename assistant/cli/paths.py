"""Path arguments and options as the user typed them: an empty one is refused, not read as '.'."""
from __future__ import annotations

from pathlib import Path

import typer


def given_path(text: str) -> Path:
    """Path("") is the current folder: `index add ""` (an unset shell variable) indexed it, and
    `--index ""` wrote an index into it. An empty or blank path is a usage error instead."""
    if isinstance(text, Path):  # a default, already a path
        return text
    if not text.strip():
        raise typer.BadParameter("the path is empty; name a file or folder")
    return Path(text)
