"""One document file, stored once, whichever way it came in: alone (`index add FILE`) or as part of
an indexed folder (`index add FOLDER`), in any collections.

Collections label sources, so a file's passages belong to exactly one source, and the labels
say which collections find it:

- A file added alone that an indexed folder already holds: when the folder's collections
  already hold every collection the file is asked into, nothing is stored (a note says the file
  is part of the folder; adding the folder again updates it). Otherwise the file moves out of
  the folder's source, once, into its own source labelled with the folder's collections and the
  new one: each of them still finds it, and the folder's later runs skip it.
- A folder added that holds files indexed alone, or indexed folders: an inner source whose
  collections are all among the folder's is absorbed into the folder's source (after the
  folder's run); any other stays its own source, skipped by the folder's walk, and gains the
  folder's collections.
- A folder added inside an indexed folder of another collection (one of the asked collection is
  simply updated, folder.py): it becomes its own source labelled with the outer folder's
  collections too, and the outer folder's copies of its files go once its run is complete.

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


def inner_folders(store, source: str, walked_folders: set[str]) -> dict[str, list[str]]:
    """Indexed folders inside `source` that its walk reaches: their source -> collections."""
    return {name: collections_of(info) for name, info in store.meta.get("sources", {}).items()
            if isinstance(info, dict) and info.get("kind") == "folder" and _inside(name, source)
            and name[len(source.rstrip("/")) + 1:] in walked_folders}


def split_inner_sources(store, source: str, walked, folder_collections: list[str], notes: list[str]):
    """(files the folder's run stores, inner sources it absorbs afterwards). An inner source (a
    file alone, or a folder) whose collections are all among the folder's is absorbed; any other
    stays its own source, gains the folder's collections, and its files are left out of the walk."""
    lone = lone_files_in(store, walked.files)
    inner = inner_folders(store, source, walked.folders)
    kept_apart = [name[len(source.rstrip("/")) + 1:] + "/" for name, labels in inner.items()
                  if not set(labels) <= set(folder_collections)]
    absorbed = [name for name, labels in inner.items() if set(labels) <= set(folder_collections)]
    files = []
    for entry in walked.files:
        rel = entry[0]
        if any(rel.startswith(prefix) for prefix in kept_apart):
            continue
        if rel in lone and not set(lone[rel][1]) <= set(folder_collections):
            continue
        files.append(entry)
        if rel in lone:
            absorbed.append(lone[rel][0])
    for name in {*(source.rstrip("/") + "/" + p.rstrip("/") for p in kept_apart),
                 *(lone[rel][0] for rel in lone if lone[rel][0] not in absorbed)}:
        info = store.meta["sources"][name]
        info["collections"] = merged(collections_of(info), folder_collections)
        notes.append(f"{name} is indexed on its own (collections {', '.join(info['collections'])}): "
                     "kept there, not stored twice")
    return files, absorbed


def absorb(store, sources: list[str], into: str, notes: list[str]) -> None:
    """Inner sources (files alone, folders) now stored by the folder `into`: their own copies go
    (after the folder's run, so that an interruption loses nothing)."""
    for source in sources:
        store.remove_documents(record.doc_id for record in store.documents_of(source).values())
        store.meta["sources"].pop(source, None)
        notes.append(f"{source} was indexed on its own: now part of {into}")


def enclosing_folders(store, source: str) -> dict[str, list[str]]:
    """Indexed folders that hold `source`'s folder by path: their source -> collections."""
    return {name: collections_of(info) for name, info in store.meta.get("sources", {}).items()
            if isinstance(info, dict) and info.get("kind") == "folder" and _inside(source, name)}


def move_out_of(store, source: str, outer: list[str], notes: list[str]) -> None:
    """After `source` (a folder inside the `outer` ones) is complete: the outer folders' copies of
    the files it now stores go, so that each is stored once."""
    mine = list(store.documents_of(source))
    for name in outer:
        prefix = source[len(name.rstrip("/")) + 1:].rstrip("/") + "/"
        theirs = store.documents_of(name)
        gone = [theirs[prefix + rel].doc_id for rel in mine if prefix + rel in theirs]
        if gone:
            store.remove_documents(gone)
            notes.append(f"{len(gone)} files moved out of {name}'s source, so that each is stored once; "
                         f"still in its collections")
