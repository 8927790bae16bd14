"""Copying text where the terminal's clipboard escape (OSC 52) may not reach: the escape is
always sent, the system's clipboard tool is used when there is one, and otherwise the text is
saved to a file; the returned line says which happened (the app always shows it)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Mapping

COPY_FILE = "copied.txt"


def clipboard_tools(env: Mapping[str, str], platform: str = sys.platform) -> list[list[str]]:
    """The clipboard commands that can work in this session, most likely first."""
    if platform == "darwin":
        return [["pbcopy"]]
    tools = []
    if env.get("WAYLAND_DISPLAY"):
        tools.append(["wl-copy"])
    if env.get("DISPLAY"):
        tools += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    tools.append(["clip.exe"])  # WSL: the Windows clipboard
    return tools


def copy_text(text: str, osc52: Callable[[str], None], save_dir: Path, *, env: Mapping[str, str] | None = None,
              which: Callable[[str], str | None] = shutil.which, run=subprocess.run,
              platform: str = sys.platform) -> str:
    """Copy `text` every way that may work; the line saying where it went."""
    osc52(text)  # terminals that support it (and tmux with set-clipboard) copy it; others ignore it
    env = os.environ if env is None else env
    for command in clipboard_tools(env, platform):
        if which(command[0]) is None:
            continue
        try:
            done = run(command, input=text.encode("utf-8"), capture_output=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return f"copied to the clipboard ({command[0]})"
    path = Path(save_dir) / COPY_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        return f"sent to the terminal's clipboard (no clipboard tool here; cannot save to {path}: {exc.strerror})"
    return f"sent to the terminal's clipboard if it accepts it; also saved to {path}"
