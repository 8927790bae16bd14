"""`assistant open N`: the n-th source of the last answer, opened at its place (a text file in
$EDITOR at its heading's line, a PDF at its page where the viewer takes one); and the sources'
lines as links (OSC 8: file:// URLs, a PDF's #page=N) on a terminal that shows them.

`ask` and `chat` keep the last answer's sources in the data dir (last_sources.json): a number in
the answer's "Sources:" list is what `open` takes.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from urllib.parse import quote

import typer

from ..events.core import Answer, Passage
from ..presentation.source_files import TEXT_SUFFIXES, file_of, heading_line, plan_open

open_app = typer.Typer()  # mounted by main.py
LAST_SOURCES = "last_sources.json"
KEPT_TEXT = 300  # of each passage: enough to find its first words in the file


def shown_sources(answer: Answer) -> list[Passage]:
    """The passages the answer lists under it, numbered as it numbers them."""
    return list(answer.citations or answer.closest)


def remember(data_dir: Path, answer: Answer | None) -> None:
    """Keep the answer's sources for `assistant open N`; a data dir that cannot be written to
    only loses that (the answer was shown)."""
    if answer is None:
        return
    rows = [dict(asdict(p), text=p.text[:KEPT_TEXT]) for p in shown_sources(answer)]
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        (data_dir / LAST_SOURCES).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    except OSError:
        pass


def links_shown(stream=None) -> bool:
    """Whether to write sources as OSC 8 links: a terminal, not a dumb one, not turned off."""
    stream = stream or sys.stdout
    return stream.isatty() and os.environ.get("TERM", "") not in ("", "dumb") \
        and not os.environ.get("ASSISTANT_NO_LINKS")


def linked(label: str, passage: Passage) -> str:
    """`label` as a link to the passage's file (at its page for a PDF; a text file's line shown
    as path:LINE, which editors and terminals read); the label alone when it has no file."""
    path = file_of(passage)
    if path is None:
        return label
    url = f"file://{quote(socket.gethostname())}{quote(str(path.resolve()))}"
    if passage.page and path.suffix.lower() == ".pdf":
        url += f"#page={passage.page}"
    elif path.suffix.lower() in TEXT_SUFFIXES:
        line = heading_line(path, passage.section, passage.text)
        label += f":{line}" if line else ""
    return f"\x1b]8;;{url}\x1b\\{label}\x1b]8;;\x1b\\"


def _last_sources(data_dir: Path) -> list[Passage]:
    from models.errors import BadInputError

    try:
        rows = json.loads((data_dir / LAST_SOURCES).read_text(encoding="utf-8"))
        return [Passage(**row) for row in rows]
    except FileNotFoundError:
        raise BadInputError('no answer yet: ask a question first, e.g. assistant ask "Who leads Heron?"') from None
    except (OSError, ValueError, TypeError):
        raise BadInputError(f"the last answer's sources cannot be read ({data_dir / LAST_SOURCES}); "
                            "ask the question again") from None


@open_app.command("open")
def open_source(number: int = typer.Argument(..., help="A source's number in the last answer's list.")) -> None:
    """Open the n-th source of the last answer at its place: a text file in $EDITOR at its
    heading's line, a PDF at its page where the viewer takes one, else with the system's opener.

    Example: assistant open 2
    """
    from models.config import load_settings
    from models.errors import BadInputError

    sources = _last_sources(load_settings().data_dir)
    if not sources:
        raise BadInputError("the last answer listed no source to open")
    if not 1 <= number <= len(sources):
        raise BadInputError(f"the last answer listed {len(sources)} source(s): give a number from 1 to {len(sources)}")
    passage = sources[number - 1]
    path = file_of(passage)
    if path is None:
        raise BadInputError(f"source {number} ({passage.citation_label()}) is no file of its own "
                            "(an article of a dump or a passage file), or the file is gone")
    plan = plan_open(path, passage)
    if plan is None:
        raise BadInputError(f"no program to open files here; set $EDITOR (the file is {path})")
    try:
        if plan.in_terminal:  # a terminal editor takes the terminal until it exits
            subprocess.run(plan.command, check=False)
        else:
            subprocess.Popen(plan.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        raise BadInputError(f"could not run {plan.command[0]} ({exc.strerror}); the file is {path}") from None
    where = f" at page {passage.page}" if passage.page else f" at “{passage.section}”" if passage.section else ""
    typer.echo(f"opened {path}{where} with {plan.command[0]}" + (f"; {plan.note}" if plan.note else ""))
