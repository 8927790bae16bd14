"""The indexer for each kind of source, and the check of its path that runs before any model
loads. Front ends (through assistant.service) pick an indexer here, by kind or from the path."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from .folder import index_folder
from .passages import index_passages
from .single_file import index_file
from .sources import (FILE, FOLDER, PASSAGES, WIKIPEDIA, check_document_file, check_folder, check_passage_file,
                      kind_of)
from .wikipedia import check_limit, index_wikipedia, open_dump

# f(store, embedder, path, on_progress=, should_stop=, **options) -> a summary with .line()
INDEXERS: dict[str, Callable] = {FOLDER: index_folder, FILE: index_file, WIKIPEDIA: index_wikipedia,
                                 PASSAGES: index_passages}


def _check_dump(path: Path) -> Path:
    raw, _ = open_dump(path)  # its first bytes say whether it is a dump
    raw.close()
    return Path(path).expanduser()


def check(kind: str, path: Path, limit: int | None = None, **_options) -> Path:
    """The path, checked as a source of this kind (BadInputError when it cannot be one), and a
    dump's article limit."""
    if kind == WIKIPEDIA:
        check_limit(limit)
    return {FOLDER: check_folder, FILE: check_document_file, WIKIPEDIA: _check_dump,
            PASSAGES: check_passage_file}[kind](path)


def choose(path: Path) -> tuple[str, Path]:
    """(kind, checked path) for a path of any kind: what `index add` in the app does."""
    kind = kind_of(path)
    return kind, check(kind, path)
