"""A safe walk of a documents folder: the files worth indexing, and why the others are not.

Hidden folders, version-control and tool folders and virtual environments are skipped; links
are never followed (a link's target inside the folder is indexed under its own path, one
outside is not the user's folder), so link loops cannot happen; files over the size limit are
reported, not read.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

TOOL_DIRS = {"node_modules", "__pycache__", "site-packages", "venv", "env", ".venv", ".tox", ".git",
             ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".cache"}
DEFAULT_MAX_SIZE = 50 * 1024 * 1024


@dataclass
class WalkResult:
    files: list[tuple[str, Path, os.stat_result]] = field(default_factory=list)  # (relative path, path, stat)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)


def _is_virtualenv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file() or (path / "conda-meta").is_dir()


def _size_text(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"


def walk_folder(root: Path, max_size: int = DEFAULT_MAX_SIZE) -> WalkResult:
    result = WalkResult()
    root = root.resolve()

    def rel(path: str) -> str:
        return Path(path).relative_to(root).as_posix()

    def link_reason(path: str) -> str:
        try:
            target = Path(path).resolve(strict=True)
        except (OSError, RuntimeError):  # RuntimeError: a loop on older Pythons
            return "link loop or broken link (not followed)"
        if target == root or root in target.parents:
            return "link to a place inside the folder (indexed there, not followed)"
        return "link leading out of the folder (not followed)"

    def on_error(exc: OSError):
        result.skipped.append((rel(exc.filename) if exc.filename else "?", f"cannot read folder: {exc.strerror}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        keep = []
        for name in sorted(dirnames):
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                result.skipped.append((rel(path) + "/", link_reason(path)))
            elif name in TOOL_DIRS:
                result.skipped.append((rel(path) + "/", "tool or version-control folder"))
            elif name.startswith("."):
                result.skipped.append((rel(path) + "/", "hidden folder"))
            elif _is_virtualenv(Path(path)):
                result.skipped.append((rel(path) + "/", "virtual environment"))
            else:
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith("."):
                continue  # dotfiles are settings, not documents
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                result.skipped.append((rel(path), link_reason(path)))
                continue
            try:
                stat = os.stat(path)
            except OSError as exc:
                result.skipped.append((rel(path), f"cannot read: {exc.strerror}"))
                continue
            if not os.path.isfile(path):
                result.skipped.append((rel(path), "not a regular file"))
            elif stat.st_size > max_size:
                result.skipped.append((rel(path), f"larger than --max-size ({_size_text(stat.st_size)} > "
                                                  f"{_size_text(max_size)})"))
            else:
                result.files.append((rel(path), Path(path), stat))
    return result
