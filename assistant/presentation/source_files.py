"""A source's original file, and how to open it at its place: a Markdown or text file in
$VISUAL/$EDITOR at the line of the passage's heading (+LINE), a PDF at its page where the viewer
takes one, else the system opener, with a note when that cannot jump to the place. Shared by the
app's `o` (tui/) and `assistant open N` (assistant/cli/)."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from ..events.core import Passage

TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".org", ".text")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
# Editors that take a place as FILE:LINE after -g instead of +LINE (and open a window of their own).
_GOTO_EDITORS = {"code", "code-insiders", "codium", "cursor"}
_GUI_EDITORS = _GOTO_EDITORS | {"subl", "gedit", "kate", "gvim", "mate", "zed"}


@dataclass
class OpenPlan:
    command: list[str]
    in_terminal: bool  # a terminal editor: the app steps aside while it runs
    note: str  # what the status line says about the place ("" when it opens there)


def heading_line(path: Path, section: str, text: str = "") -> int | None:
    """The 1-based line of the passage's heading (its section is "H1 > H2 > ..."), else of the
    line holding the passage's first words; None when neither is found."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    wanted = [p.strip().lower() for p in section.split(" > ") if p.strip()] if section else []
    found, at = None, 0
    for number, line in enumerate(lines, 1):
        match = _HEADING.match(line)
        if match and at < len(wanted) and match.group(1).strip().lower() == wanted[at]:
            found, at = number, at + 1
            if at == len(wanted):
                return found
    if found is not None:
        return found
    start = " ".join(text.split()[:6])
    if start:
        for number, line in enumerate(lines, 1):
            if start in " ".join(line.split()):
                return number
    return None


def editor_command(path: Path, line: int, env: Mapping[str, str],
                   which: Callable[[str], str | None] = shutil.which) -> OpenPlan | None:
    """$VISUAL (else $EDITOR) at `line`; None when neither is set or the program is not there."""
    setting = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
    try:
        editor = shlex.split(setting)
    except ValueError:
        return None
    if not editor or not which(editor[0]):
        return None
    name = Path(editor[0]).name
    if name in _GOTO_EDITORS:
        return OpenPlan([*editor, "-g", f"{path}:{line}"], False, "")
    return OpenPlan([*editor, f"+{line}", str(path)], name not in _GUI_EDITORS, "")


def plan_open(path: Path, passage: Passage, env: Mapping[str, str] | None = None,
              which: Callable[[str], str | None] | None = None, platform: str = sys.platform) -> OpenPlan | None:
    """The command for `o`; None when this system has no way to open files."""
    env = os.environ if env is None else env
    which = which or shutil.which
    if path.suffix.lower() in TEXT_SUFFIXES:
        line = heading_line(path, passage.section, passage.text)
        plan = editor_command(path, line, env, which) if line else None
        if plan is not None:
            return plan
        command = open_command(path, None, which, platform)
        if command is None:
            return None
        editor = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
        why = ("its heading was not found in the file" if not line else
               f"$EDITOR ({editor}) was not found; set it to an installed editor" if editor else
               "set $EDITOR to open it at its heading")
        return OpenPlan(command, False, f"{command[0]} cannot jump to the heading ({why})" if passage.section
                        or line else "")
    command = open_command(path, passage.page, which, platform)
    if command is None:
        return None
    at_page = passage.page and path.suffix.lower() == ".pdf" and command[0] in ("zathura", "evince", "okular")
    note = f"{command[0]} cannot be told the page; it is page {passage.page}" if passage.page and not at_page else ""
    return OpenPlan(command, False, note)


def file_of(passage: Passage) -> Path | None:
    """The original file of a passage from an indexed folder or file; None for a dump or a
    passage file's article (they have no file of their own) or a file that is gone."""
    if not passage.source:
        return None
    source = Path(passage.source)
    for candidate in (source, source / passage.path if passage.path else None):
        if candidate is not None and candidate.is_file() and candidate.suffix.lower() not in (".jsonl", ".tsv", ".xml", ".bz2"):
            return candidate
    return None


def open_command(path: Path, page: int | None = None, which: Callable[[str], str | None] | None = None,
                 platform: str = sys.platform) -> list[str] | None:
    """The command that opens `path` for the user (a PDF viewer at `page` when one that takes a
    page is installed); None when this system has no opener."""
    which = which or shutil.which
    if page and path.suffix.lower() == ".pdf":
        for viewer, flag in (("zathura", "--page"), ("evince", "--page-index"), ("okular", "--page")):
            if which(viewer):
                return [viewer, f"{flag}={page}", str(path)]
    if platform == "darwin":
        return ["open", str(path)]
    if platform.startswith("win"):
        return ["explorer", str(path)]
    for opener in ("xdg-open", "gio", "wslview"):
        if which(opener):
            return [opener, "open", str(path)] if opener == "gio" else [opener, str(path)]
    return None
