"""Does the product index every file of the folder? `assistant index add FOLDER --collection
personal` through the service, into a data dir of its own; the files it skipped, and why."""
from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path


def index_check(folder: Path, data_dir: Path | None = None, embedder_factory=None) -> tuple[str, list[str]]:
    """(the indexer's summary line, 'FILE: reason' for each file skipped). The index is written
    under data_dir (a temporary folder when none is given, removed afterwards)."""
    from assistant import service
    from models.config import load_settings

    with tempfile.TemporaryDirectory(prefix="personal-index-") as scratch:
        settings = dataclasses.replace(load_settings(), data_dir=Path(data_dir or scratch), index=None,
                                       collection=None)
        summary = service.add_source(settings, folder, kind="document", collection="personal",
                                     embedder_factory=embedder_factory)
        return summary.line(), [_skip_line(item) for item in summary.skipped]


def _skip_line(item) -> str:
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return f"{item[0]}: {item[1]}"
    return str(item)
