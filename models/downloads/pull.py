"""`models pull`: fetch a catalog entry or any GGUF on the hub into the data dir, verified, and
record it as installed. Offline, the error line says what to download and where to put it."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from models.downloads.catalog import CatalogEntry
from models.downloads.download import RemoteFile, download, file_url, hub_endpoint, megabytes, partial_file, remote_file
from models.errors import ModelError
from models.downloads.installed import Installed, downloads_dir, find_installed, name_for, record

_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")  # the hub's repo ids


@dataclass
class PullEvents:
    """What a front end shows while pulling (all optional)."""

    start: Callable[[RemoteFile, int], None] | None = None  # (file, bytes already here: size when complete)
    progress: Callable[[int, int], None] | None = None
    verify: Callable[[int, int], None] | None = None
    done: Callable[[Path], None] | None = None


def _offline_hint(entry: CatalogEntry, folder: Path) -> str:
    if len(entry.files) == 1:
        target = folder / entry.files[0]
        then = (f"assistant models add {target}" if entry.is_reader else
                entry.next.format(folder=folder) if entry.next else f"use {target}")
        return (f"on a machine with internet download {file_url(entry.repo, entry.files[0])} "
                f"(about {entry.size_gb:g} GB), put it at {target}, then run: {then}")
    then = entry.next.format(folder=folder) if entry.next else f"use {folder}"
    return (f"on a machine with internet download {', '.join(entry.files)} from {hub_endpoint()}/{entry.repo} "
            f"(about {entry.size_gb:g} GB) into {folder}, then run: {then}")


def _fetch(repo: str, filename: str, folder: Path, offline: bool, hint: str, events: PullEvents) -> tuple[Path, RemoteFile]:
    remote = remote_file(repo, filename, offline=offline, if_offline=hint)
    if events.start:
        partial = partial_file(folder, remote)
        complete = (folder / filename).is_file() and (folder / filename).stat().st_size == remote.size
        events.start(remote, remote.size if complete else partial.stat().st_size if partial else 0)
    path = download(remote, folder, on_progress=events.progress, on_verify=events.verify)
    if events.done:
        events.done(path)
    return path, remote


def pull_entry(entry: CatalogEntry, data_dir: Path, *, offline: bool, events: PullEvents | None = None) -> Installed:
    """Every file of a catalog entry; a reader is recorded by its GGUF, a judge base by its folder."""
    if offline and (done := _installed_offline(data_dir, entry.name)):
        return done
    events = events or PullEvents()
    folder = downloads_dir(data_dir, entry.repo)
    hint = _offline_hint(entry, folder)
    fetched = [_fetch(entry.repo, name, folder, offline, hint, events) for name in entry.files]
    if entry.is_reader:
        path, remote = fetched[0]
        _check_gguf(path)
        model = Installed(entry.name, str(path), "reader", "pulled", entry.repo, _sha256(remote), remote.size)
    else:
        model = Installed(entry.name, str(folder), entry.role, "pulled", entry.repo, "",
                          sum(remote.size for _, remote in fetched))
    record(data_dir, model)
    return model


def pull_gguf(repo: str, filename: str, data_dir: Path, *, offline: bool, events: PullEvents | None = None) -> Installed:
    """Any GGUF file of any hub repository (`models pull OWNER/REPO FILE.gguf`)."""
    if not _REPO.match(repo) or ".." in repo:
        raise ModelError(f"'{repo}' is not a hub repository: write it as OWNER/NAME, e.g. bartowski/Qwen2.5-3B-Instruct-GGUF")
    if not filename.lower().endswith(".gguf"):
        raise ModelError(f"'{filename}' is not a .gguf file: readers must be GGUF files (the repository's "
                         f"file list is at {hub_endpoint()}/{repo}/tree/main)")
    if filename.startswith("/") or any(part in ("", ".", "..") for part in filename.split("/")):
        raise ModelError(f"'{filename}' is not a file name inside a repository")
    folder = downloads_dir(data_dir, repo)
    target = folder / filename
    if offline and (done := _installed_offline(data_dir, name_for(target))):
        return done
    hint = (f"on a machine with internet download {file_url(repo, filename)}, put it at {target}, "
            f"then run: assistant models add {target}")
    path, remote = _fetch(repo, filename, folder, offline, hint, events or PullEvents())
    _check_gguf(path)
    model = Installed(name_for(path), str(path), "reader", "pulled", repo, _sha256(remote), remote.size)
    record(data_dir, model)
    return model


def _installed_offline(data_dir: Path, name: str) -> Installed | None:
    """Offline, a model pulled (and checked) before is simply there: no error for it."""
    model = find_installed(data_dir, name)
    return model if model is not None and model.source == "pulled" and model.exists else None


def _sha256(remote: RemoteFile) -> str:
    return remote.etag if remote.hash_kind == "sha256" else ""


def _check_gguf(path: Path) -> None:
    from models.reader.gguf_header import read_header

    try:
        read_header(path)
    except ModelError as exc:
        raise ModelError(f"downloaded {path.name} ({megabytes(path.stat().st_size)}), but it is not a usable "
                         f"GGUF reader: {exc}") from None
