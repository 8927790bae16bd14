"""Which catalog entry a local reader file is (by its SHA-256, or by the catalog's file name when
no hash is pinned), and the installed file a catalog name means, found offline: a file added with
`models add`, pulled, or placed where the offline `models pull` error said."""
from __future__ import annotations

import hashlib
from pathlib import Path

from models.downloads.catalog import CatalogEntry, load_catalog
from models.downloads.installed import Installed, downloads_dir, load_installed, record


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def entry_for_file(path: Path, sha256: str, catalog: list[CatalogEntry] | None = None) -> CatalogEntry | None:
    """The catalog reader this file is: same hash; or, for an entry with no pinned hash, the
    same file name (the hub's names are unique per repository and quantization)."""
    readers = [e for e in (catalog or load_catalog()) if e.is_reader]
    by_hash = next((e for e in readers if e.sha256 and e.sha256 == sha256), None)
    if by_hash is not None:
        return by_hash
    name = Path(path).name.lower()
    return next((e for e in readers if not e.sha256 and e.files[0].lower() == name), None)


def installed_entry(data_dir: Path, entry: CatalogEntry) -> Installed | None:
    """The installed file that is this catalog entry, if any: recorded under its name, with its
    hash or file name, or lying where `models pull` puts it (then recorded, so it is listed)."""
    readers = [m for m in load_installed(data_dir) if m.role == "reader" and m.exists]
    for model in readers:
        if model.name == entry.name or (entry.sha256 and model.sha256 == entry.sha256):
            return model
    placed = downloads_dir(data_dir, entry.repo) / entry.files[0]
    for model in readers:
        if Path(model.path).name.lower() == entry.files[0].lower() and not entry.sha256:
            return model
    if placed.is_file():
        sha = sha256_of(placed)
        if entry.sha256 and sha != entry.sha256:
            return None
        model = Installed(entry.name, str(placed.resolve()), "reader", "added", entry.repo, sha,
                          placed.stat().st_size)
        record(data_dir, model)
        return model
    return None
