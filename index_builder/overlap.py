"""One document file, stored once, whichever way it came in: alone (`index add FILE`) or as part of
an indexed folder (`index add FOLDER`), in any collections.

Collections label sources, so a file's passages belong to exactly one source, and the labels
say which collections find it:

- A file added alone that an indexed folder already holds: when the folder's collections
  already hold every collection the file is asked into, nothing is stored (a note says the file
  is part of the folder; adding the folder again updates it). Otherwise the file moves out of
  the folder's source, once, into its own source labelled with the folder's collections and the
  new one: each of them still finds it, and the folder's later runs skip it.
- A folder added that holds files indexed alone: a lone file whose collections are all among
  the folder's is absorbed into the folder's source (after the folder's run, as inner folders
  are); any other stays its own source, skipped by the folder's walk, and gains the folder's
  collections.

Removing a collection then only drops its label from a moved file that others still hold.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .collections import collections_of
from .names import safe_name


def _inside(path: str, parent: str) -> bool:
    return path != parent and path.startswith(parent.rstrip("/") + "/")


def merged(*groups: list[str]) -> list[str]:
    """Collection names in their first order, each once."""
    out: list[str] = []
    for group in groups:
        out += [name for name in group if name not in out]
    return out


@dataclass
class Holder:
    """An indexed folder source that holds a file: its name, collections and the file's record."""

    source: str
    collections: list[str]
    rel: str
    doc_id: str


def folder_holding(store, file_source: str) -> Holder | None:
    """The indexed folder whose source already holds this file (by its recorded path), if any."""
    for name, info in store.meta.get("sources", {}).items():
        if isinstance(info, dict) and info.get("kind") == "folder" and _inside(file_source, name):
            rel = file_source[len(name.rstrip("/")) + 1:]
            record = store.documents_of(name).get(rel)
            if record is not None:
                return Holder(name, collections_of(info), rel, record.doc_id)
    return None


def lone_files_in(store, files: list[tuple[str, Path, os.stat_result]]) -> dict[str, tuple[str, list[str]]]:
    """Listed files of a folder walk that are indexed alone: rel -> (their source, collections)."""
    sources = {name: info for name, info in store.meta.get("sources", {}).items()
               if isinstance(info, dict) and info.get("kind") == "file"}
    if not sources:
        return {}
    found = {}
    for rel, path, _stat in files:
        for name in {safe_name(str(path)), safe_name(str(Path(path).resolve()))}:
            if name in sources:
                found[rel] = (name, collections_of(sources[name]))
                break
    return found


def split_lone_files(store, files: list, folder_collections: list[str], notes: list[str]):
    """(files the folder's run stores, lone sources it absorbs afterwards). Lone files with a
    collection the folder lacks stay their own sources, gain the folder's collections, and are
    left out of the walk."""
    lone = lone_files_in(store, files)
    kept, absorbed = [], []
    for entry in files:
        rel = entry[0]
        if rel not in lone:
            kept.append(entry)
            continue
        source, labels = lone[rel]
        if set(labels) <= set(folder_collections):
            kept.append(entry)
            absorbed.append(source)
            continue
        info = store.meta["sources"][source]
        info["collections"] = merged(labels, folder_collections)
        notes.append(f"{source} is indexed on its own (collections {', '.join(info['collections'])}): "
                     "kept there, not stored twice")
    return kept, absorbed


def absorb(store, sources: list[str], into: str, notes: list[str]) -> None:
    """Lone file sources now stored by the folder `into`: their own copies go."""
    for source in sources:
        store.remove_documents(record.doc_id for record in store.documents_of(source).values())
        store.meta["sources"].pop(source, None)
        notes.append(f"{source} was indexed on its own: now part of {into}")
