"""Named collections of an index's sources (work, personal...): which sources a collection
holds, labelling a source, their sizes, and removing one collection without touching another's.

A collection is a label on sources in the index's metadata (`collections`: a list of names);
a source without one is in DEFAULT. A source in two collections stays until both are removed."""
from __future__ import annotations

import re
from dataclasses import dataclass

from models.errors import BadInputError

DEFAULT = "default"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def check_name(name: str) -> str:
    """A collection name as given, or one line saying what a name may hold."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        shown = name if isinstance(name, str) and name.isprintable() else repr(name)
        raise BadInputError(f"collection name {shown!r}: use 1-40 letters, digits, '-', '_' or '.', "
                            "starting with a letter or digit (e.g. work)")
    return name


def collections_of(info) -> list[str]:
    """The collections a source's recorded info puts it in (DEFAULT when none is recorded)."""
    names = info.get("collections") if isinstance(info, dict) else None
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) and names else [DEFAULT]


def with_collection(info, name: str) -> list[str]:
    """The source's collections once `name` is added (a first add to a new source: only `name`)."""
    if not isinstance(info, dict) or not info:
        return [name]
    names = collections_of(info)
    return names if name in names else [*names, name]


def sources_in(meta: dict, name: str) -> list[str]:
    """The recorded sources in collection `name`, sorted."""
    return sorted(source for source, info in meta.get("sources", {}).items() if name in collections_of(info))


def all_names(meta: dict) -> list[str]:
    return sorted({name for info in meta.get("sources", {}).values() for name in collections_of(info)})


def check_known(meta: dict, name: str) -> list[str]:
    """The sources of an existing collection, or one line naming the collections there are."""
    check_name(name)
    sources = sources_in(meta, name)
    if not sources:
        known = ", ".join(all_names(meta)) or "none yet"
        raise BadInputError(f"no collection {name!r} in the index (collections: {known}); "
                            f"add one with `assistant index add PATH --collection {name}`")
    return sources


@dataclass(frozen=True)
class CollectionSize:
    name: str
    sources: int
    documents: int
    passages: int
    bytes: int  # the indexed documents' own size


def sizes(store) -> list[CollectionSize]:
    """Each collection with its counts, from the store's status and document sizes."""
    status = store.status()
    by_source = {source.name: source for source in status.sources}
    doc_bytes = store.document_bytes()
    rows = []
    for name in all_names(store.meta):
        members = [by_source[s] for s in sources_in(store.meta, name) if s in by_source]
        rows.append(CollectionSize(name, len(members), sum(s.documents for s in members),
                                   sum(s.passages for s in members),
                                   sum(doc_bytes.get(s.name, 0) for s in members)))
    return rows


def remove(store, name: str) -> tuple[list[str], int]:
    """Drop collection `name`: its sources that no other collection holds are removed with their
    passages; shared ones only lose the label. Returns (sources removed, passages removed)."""
    store.hold_write_lock(reload_meta=True)
    removed, passages = [], 0
    for source in check_known(store.meta, name):
        info = store.meta["sources"][source]
        others = [n for n in collections_of(info) if n != name]
        if others:
            info["collections"] = others
            store.save_meta()
        else:
            passages += store.remove_source(source)
            removed.append(source)
    return removed, passages
