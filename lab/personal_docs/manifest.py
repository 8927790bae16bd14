"""The folder's manifest: each file, its source and the sha256 of its text as the product extracts
it (a PDF's or DOCX's bytes carry dates; their text does not). A file whose text differs from the
committed manifest is drift: the questions it holds are flagged, not scored silently."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = Path(__file__).with_name("manifest.json")
DEV_MANIFEST = Path(__file__).with_name("dev_manifest.json")  # the dev folder's (build_folder.py --set dev)


def text_sha256(path: Path) -> str:
    """sha256 of the file's sections (heading and text) as index_builder extracts them."""
    from index_builder.extract import extract

    extracted = extract(path, path.read_bytes())
    text = "\n".join([extracted.title] + [f"{s.heading}\n{s.text}" for s in extracted.sections])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_manifest(path: Path = MANIFEST) -> dict[str, dict]:
    """file (relative path) -> {"source", "sha256"}; {} when there is none."""
    if not path.is_file():
        return {}
    return {row["file"]: row for row in json.loads(path.read_text(encoding="utf-8"))["files"]}


def write_manifest(rows: list[dict], path: Path = MANIFEST) -> None:
    path.write_text(json.dumps({"files": rows}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def drifted(folder: Path, manifest: dict[str, dict]) -> dict[str, str]:
    """file -> why, for each manifest file missing from the folder or whose text changed."""
    out = {}
    for name, row in manifest.items():
        path = folder / name
        if not path.is_file():
            out[name] = "missing"
        elif text_sha256(path) != row["sha256"]:
            out[name] = "text changed"
    return out


def drift_line(drift: dict[str, str], path: Path = MANIFEST) -> str:
    """One line saying what drifted (from the manifest at `path`), or "" when nothing did."""
    if not drift:
        return ""
    listed = ", ".join(f"{name} ({why})" for name, why in sorted(drift.items())[:6])
    more = f" and {len(drift) - 6} more" if len(drift) > 6 else ""
    return (f"drift: {len(drift)} of the folder's files differ from lab/{path.parent.name}/{path.name}: "
            f"{listed}{more}; their questions are flagged")
