"""A safe walk of a documents folder: the files worth indexing, and why the others are not.

Hidden folders, version-control and tool folders, virtual environments and the index itself are
skipped; links are never followed (a link's target inside the folder is indexed under its own
path, one outside is not the user's folder), so link loops cannot happen; files over the size
limit are reported, not read; a folder that cannot be listed or entered is named and skipped.
Paths are given as `safe_name`s (relative, valid UTF-8, one line): a name that is not UTF-8
or holds a newline is indexed under its escaped form.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .names import safe_name

TOOL_DIRS = {"node_modules", "__pycache__", "site-packages", "venv", "env", ".venv", ".tox", ".git",
             ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".cache"}
DEFAULT_MAX_SIZE = 50 * 1024 * 1024


@dataclass
class WalkResult:
    files: list[tuple[str, Path, os.stat_result]] = field(default_factory=list)  # (relative path, path, stat)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (relative path, reason)
    folders: set[str] = field(default_factory=set)  # relative paths of the folders walked ("." the root)


def _is_virtualenv(path: Path) -> bool:
    try:
        return (path / "pyvenv.cfg").is_file() or (path / "conda-meta").is_dir()
    except OSError:  # cannot look inside: reported by cannot_enter
        return False


def cannot_enter(path: str) -> str | None:
    """Why a folder cannot be walked (None when it can): listing needs read permission, and
    reaching its files needs search (x) permission, which a mode-644 folder lacks."""
    try:
        with os.scandir(path):
            pass
        os.stat(os.path.join(path, os.curdir))
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def folder_skip_reason(path: str, excluded: set[str] = frozenset()) -> str | None:
    """Why the walk does not enter the (non-link) subfolder `path`, or None when it does."""
    name = os.path.basename(path)
    if name in TOOL_DIRS:
        return "tool or version-control folder"
    if name.startswith("."):
        return "hidden folder"
    if os.path.abspath(path) in excluded:
        return "the index itself"
    if (why := cannot_enter(path)) is not None:
        return f"cannot open folder: {why}"
    if _is_virtualenv(Path(path)):
        return "virtual environment"
    return None


def walks_into(root: Path, folder: Path, exclude: Iterable[Path] = ()) -> bool:
    """Whether a walk of `root` reaches `folder` (both resolved; `folder` inside `root`)."""
    excluded = {os.path.abspath(p) for p in exclude}
    path = root
    for part in folder.relative_to(root).parts:
        path = path / part
        if path.is_symlink() or folder_skip_reason(str(path), excluded) is not None:
            return False
    return True


def _size_text(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"


def _sizes_text(size: int, limit: int) -> str:
    """"60.2 MB > 50.0 MB"; in bytes when rounding would show two equal sizes."""
    shown, bound = _size_text(size), _size_text(limit)
    return f"{shown} > {bound}" if shown != bound else f"{size:,} bytes > {limit:,} bytes"


def walk_folder(root: Path, max_size: int = DEFAULT_MAX_SIZE, exclude: Iterable[Path] = ()) -> WalkResult:
    """`exclude`: folders not to index (the index's own folder when it lies inside `root`)."""
    result = WalkResult()
    root = root.resolve()
    excluded = {os.path.abspath(p) for p in exclude}
    seen: dict[str, str] = {}  # safe relative path -> the real one, to catch two names escaping alike

    def rel(path: str) -> str:
        return safe_name(Path(path).relative_to(root).as_posix())

    def link_reason(path: str) -> str:
        try:
            target = Path(path).resolve(strict=True)
        except (OSError, RuntimeError):  # RuntimeError: a loop on older Pythons
            return "link loop or broken link (not followed)"
        if target == root or root in target.parents:
            return "link to a place inside the folder (indexed there, not followed)"
        return "link leading out of the folder (not followed)"

    def on_error(exc: OSError):
        name = rel(exc.filename) + "/" if exc.filename else "?"
        result.skipped.append((name, f"cannot read folder: {exc.strerror}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        result.folders.add(rel(dirpath))
        keep = []
        for name in sorted(dirnames):
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                result.skipped.append((rel(path) + "/", link_reason(path)))
            elif (why := folder_skip_reason(path, excluded)) is not None:
                result.skipped.append((rel(path) + "/", why))
            else:
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith("."):
                continue  # dotfiles are settings, not documents
            path = os.path.join(dirpath, name)
            relative = rel(path)
            if os.path.islink(path):
                result.skipped.append((relative, link_reason(path)))
                continue
            try:
                stat = os.stat(path)
            except OSError as exc:
                result.skipped.append((relative, f"cannot read: {exc.strerror}"))
                continue
            if not os.path.isfile(path):
                result.skipped.append((relative, "not a regular file"))
            elif stat.st_size > max_size:
                result.skipped.append((relative, f"larger than --max-size ({_sizes_text(stat.st_size, max_size)})"))
            elif relative in seen:
                result.skipped.append((relative, "its escaped name is the name of another file; rename one"))
            else:
                seen[relative] = path
                result.files.append((relative, Path(path), stat))
    return result
