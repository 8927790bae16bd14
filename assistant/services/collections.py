"""The index's named collections for the front ends: list them with their sizes, remove one
(leaving every other collection's passages as they are). Adding to one is service.add_source
with `collection=`; asking within one is the `collection` setting."""
from __future__ import annotations

from models.config import Settings


def list_collections(settings: Settings) -> list:
    """Each collection (index_builder.collections.CollectionSize: name, sources, documents,
    passages, bytes); NoIndex when there is no index."""
    from index_builder.collections import sizes
    from index_builder.store import IndexStore

    return sizes(IndexStore.open(settings.index_path))


def sources_of(settings: Settings, name: str) -> list[str]:
    """The sources of collection `name`; one line naming the known ones when there is none."""
    from index_builder.collections import check_known
    from index_builder.store import IndexStore

    return check_known(IndexStore.open(settings.index_path).meta, name)


def remove_collection(settings: Settings, name: str) -> tuple[list[str], int]:
    """Drop collection `name`: (sources removed, passages removed). Sources another collection
    also holds are kept for it."""
    from index_builder import collections, lock
    from index_builder.store import IndexStore

    collections.check_known(IndexStore.open(settings.index_path).meta, name)  # said before the lock
    with lock.write_lock(settings.index_path), IndexStore.open(settings.index_path) as store:
        return collections.remove(store, name)


def check_name(name: str) -> str:
    from index_builder.collections import check_name as check

    return check(name)
