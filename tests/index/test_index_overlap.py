"""A document file is stored once however it came in (issue 54): alone after its folder, its folder
after it alone, in the same collection or in different ones (index_builder/overlap.py)."""
from __future__ import annotations

import pytest
from helpers.cli_run import cli  # noqa: F401 (a fixture)
from helpers.hash_embedder import HashEmbedder, write

from assistant.retrieval.retriever import HybridRetriever
from index_builder import collections
from index_builder.folder import index_folder
from index_builder.single_file import index_file
from index_builder.store import IndexStore

MARK = "kingfisher"  # only the one file says it


@pytest.fixture
def store(tmp_path):
    return IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    write(folder, "top.md", "# Top\n\nThe heron project ships in May.\n")
    write(folder / "birds", "river.md", f"# River\n\nA {MARK} dives by the mill.\n")
    return folder


def copies(store) -> int:
    """Passages holding the marked file's text: one per stored copy."""
    return sum(MARK in text for text in store.passages.to_arrow()["text"].to_pylist())


def found_in(store, name: str) -> bool:
    sources = collections.sources_in(store.meta, name)
    return any(MARK in p.text for p in HybridRetriever(store, HashEmbedder(), sources=sources).search(MARK, 10))


@pytest.mark.parametrize("folder_in, file_in", [("default", "default"), ("work", "work"), ("work", "home"),
                                                 ("default", "home")])
def test_a_folders_file_added_alone_is_stored_once(store, docs, folder_in, file_in):
    embedder, river = HashEmbedder(), docs / "birds" / "river.md"
    index_folder(store, embedder, docs, collection=folder_in)
    summary = index_file(store, embedder, river, collection=file_in)
    assert copies(store) == 1
    assert found_in(store, folder_in) and found_in(store, file_in)
    if folder_in == file_in:  # nothing to do: the folder holds it
        assert "already indexed as part of" in summary.line() and not summary.indexed
        assert str(river.resolve()) not in store.meta["sources"]
    else:  # moved out of the folder's source, once, and still found in the folder's collection
        assert "moved out of" in summary.line()
        assert store.meta["sources"][str(river.resolve())]["collections"] == [folder_in, file_in]
    again = index_folder(store, embedder, docs, collection=folder_in)  # the folder's next run
    assert copies(store) == 1 and not again.indexed
    assert index_file(store, embedder, river, collection=file_in).indexed == []
    assert copies(store) == 1


@pytest.mark.parametrize("file_in, folder_in", [("default", "default"), ("work", "work"), ("home", "work")])
def test_a_folder_added_after_one_of_its_files_stores_that_file_once(store, docs, file_in, folder_in):
    embedder, river = HashEmbedder(), docs / "birds" / "river.md"
    index_file(store, embedder, river, collection=file_in)
    summary = index_folder(store, embedder, docs, collection=folder_in)
    assert copies(store) == 1
    assert found_in(store, folder_in) and found_in(store, file_in)
    lone = str(river.resolve())
    if file_in == folder_in:  # the lone one moves into the folder's source, once
        assert lone not in store.meta["sources"] and "now part of" in summary.line()
    else:  # kept on its own, skipped by the folder, found in both collections
        assert store.meta["sources"][lone]["collections"] == [file_in, folder_in]
        assert "kept there" in summary.line()
    index_folder(store, embedder, docs, collection=folder_in)
    assert copies(store) == 1


def test_removing_one_collection_keeps_a_moved_file_for_the_other(store, docs):
    embedder, river = HashEmbedder(), docs / "birds" / "river.md"
    index_folder(store, embedder, docs, collection="work")
    index_file(store, embedder, river, collection="home")
    collections.remove(store, "home")
    assert copies(store) == 1 and found_in(store, "work")
    collections.remove(store, "work")
    assert copies(store) == 0 and store.passages.count_rows() == 0


def test_an_index_that_stored_a_file_twice_is_mended_by_adding_it_again(store, docs):
    """An index from before this rule: the file alone and in its folder, same collection."""
    embedder, river = HashEmbedder(), docs / "birds" / "river.md"
    index_file(store, embedder, river)
    store.meta["sources"].pop(str(river.resolve()))  # hide it so that the folder stores it too ...
    index_folder(store, embedder, docs)
    store.meta["sources"][str(river.resolve())] = {"kind": "file", "collections": ["default"]}  # ... as before
    store.save_meta()
    assert copies(store) == 2
    summary = index_file(store, embedder, river)
    assert copies(store) == 1 and "separate copy was removed" in summary.line()


def test_cli_a_folders_file_added_alone_is_said_and_stored_once(cli, tmp_path, docs):  # noqa: F811
    assert cli("index", "add", str(docs))[0] == 0
    code, out, err = cli("index", "add", str(docs / "birds" / "river.md"))
    assert code == 0, err
    assert "already indexed as part of" in out and "Traceback" not in out + err
    store = IndexStore.open(tmp_path / "data" / "index")
    assert copies(store) == 1 and len(store.meta["sources"]) == 1


@pytest.mark.parametrize("first, second", [(("docs", "work"), ("birds", "home")), (("birds", "home"), ("docs", "work")),
                                           (("docs", "work"), ("birds", "work")), (("birds", "work"), ("docs", "work"))])
def test_nested_folders_in_any_collections_store_each_file_once(store, docs, first, second):
    embedder = HashEmbedder()
    where = {"docs": docs, "birds": docs / "birds"}
    for name, collection in (first, second, first, second):  # each added twice, in turn
        index_folder(store, embedder, where[name], collection=collection)
        assert copies(store) == 1
    assert found_in(store, first[1]) and found_in(store, second[1])
    remaining = {first[1], second[1]}
    for collection in sorted(remaining):  # removing one keeps what the other holds
        collections.remove(store, collection)
        remaining.discard(collection)
        assert copies(store) == (1 if remaining else 0)
        assert all(found_in(store, name) for name in remaining)
