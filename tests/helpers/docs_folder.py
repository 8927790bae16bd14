"""Writing a small folder of documents for tests that index one."""
from __future__ import annotations

from pathlib import Path


def write_docs(folder: Path, docs: dict[str, str]) -> Path:
    """Create `folder` holding one UTF-8 file per name -> text; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
