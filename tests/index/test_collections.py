"""Named collections and single files: a file is indexed on its own, collections keep their
sources apart (search within one, sizes listed, removing one leaves every other's passages)."""
from __future__ import annotations

import json

import pytest

from assistant.retrieval.retriever import HybridRetriever
from index_builder import collections
from index_builder.folder import index_folder
from index_builder.single_file import index_file
from index_builder.store import IndexStore
from models.errors import BadInputError

from helpers.cli_run import cli, one_error_line  # noqa: F401 (a fixture)
from helpers.hash_embedder import HashEmbedder, write


@pytest.fixture
def store(tmp_path):
    return IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)


def _sources_of_passages(store) -> set[str]:
    return set(store.passages.to_arrow()["source"].to_pylist())


def test_a_single_file_is_its_own_source_updated_like_a_folders(tmp_path, store):
    note = write(tmp_path / "loose", "heron.md", "# Heron\n\nThe heron project ships in May.\n")
    embedder = HashEmbedder()
    first = index_file(store, embedder, note)
    assert first.indexed == ["heron.md"] and first.source == str(note.resolve())
    again = index_file(store, embedder, note)
    assert again.unchanged == 1 and not again.indexed
    note.write_text("# Heron\n\nThe heron project slipped to June.\n")
    assert index_file(store, embedder, note).updated == ["heron.md"]
    texts = " ".join(store.passages.to_arrow()["text"].to_pylist())
    assert "June" in texts and "May" not in texts
    assert store.meta["sources"][first.source]["kind"] == "file"


def test_an_unreadable_single_file_is_one_error_and_leaves_no_source(tmp_path, store):
    empty = write(tmp_path, "empty.md", "")
    with pytest.raises(BadInputError, match="cannot index empty.md: empty file"):
        index_file(store, HashEmbedder(), empty)
    assert store.meta.get("sources", {}) == {}
    with pytest.raises(BadInputError, match="passage file"):
        index_file(store, HashEmbedder(), write(tmp_path, "p.jsonl", "{}"))


def test_collections_are_searched_apart_and_removed_apart(tmp_path, store):
    work, home = tmp_path / "work", tmp_path / "home"
    write(work, "plan.md", "# Plan\n\nThe heron launch is on Monday.\n")
    write(home, "garden.md", "# Garden\n\nThe heron visits the pond at dawn.\n")
    embedder = HashEmbedder()
    index_folder(store, embedder, work, collection="work")
    index_folder(store, embedder, home, collection="home")
    assert collections.all_names(store.meta) == ["home", "work"]
    for name, folder in (("work", work), ("home", home)):
        sources = collections.sources_in(store.meta, name)
        assert sources == [str(folder.resolve())]
        found = HybridRetriever(store, embedder, sources=sources).search("heron", 10)
        assert found and {p.source for p in found} == set(sources)
    assert len({p.source for p in HybridRetriever(store, embedder).search("heron", 10)}) == 2

    sizes = {row.name: row for row in collections.sizes(store)}
    assert sizes["work"].documents == 1 and sizes["work"].passages >= 1
    assert sizes["work"].bytes == (work / "plan.md").stat().st_size
    before_home = store.passages.count_rows(f"source = '{home.resolve()}'")
    removed, _ = collections.remove(store, "work")
    assert removed == [str(work.resolve())]
    assert _sources_of_passages(store) == {str(home.resolve())}
    assert store.passages.count_rows(f"source = '{home.resolve()}'") == before_home
    with pytest.raises(BadInputError, match=r"no collection 'work'.*collections: home"):
        collections.check_known(store.meta, "work")


def test_a_folder_in_two_collections_stays_until_both_are_removed(tmp_path, store):
    shared = tmp_path / "shared"
    write(shared, "a.md", "# A\n\nShared notes.\n")
    embedder = HashEmbedder()
    index_folder(store, embedder, shared, collection="work")
    index_folder(store, embedder, shared, collection="home")
    assert collections.remove(store, "work") == ([], 0)
    assert store.passages.count_rows() > 0 and collections.all_names(store.meta) == ["home"]
    assert collections.remove(store, "home")[0] == [str(shared.resolve())]
    assert store.passages.count_rows() == 0


def test_a_folder_inside_another_collections_folder_is_not_merged_into_it(tmp_path, store):
    """Its own source, labelled with both collections; its files stored once (issue 54)."""
    outer = tmp_path / "docs"
    write(outer, "top.md", "# Top\n\nWork things.\n")
    write(outer / "private", "diary.md", "# Diary\n\nPersonal things.\n")
    embedder = HashEmbedder()
    index_folder(store, embedder, outer, collection="work")
    inner = index_folder(store, embedder, outer / "private", collection="personal")
    private = str((outer / "private").resolve())
    assert inner.source == private and "moved out of" in inner.line()
    assert store.meta["sources"][private]["collections"] == ["work", "personal"]
    texts = store.passages.to_arrow()["text"].to_pylist()
    assert sum("Personal things" in t for t in texts) == 1
    collections.remove(store, "personal")  # the work collection still holds the diary
    assert _sources_of_passages(store) == {str(outer.resolve()), private}
    assert collections.sources_in(store.meta, "work") == sorted([str(outer.resolve()), private])
    assert "now part of" in index_folder(store, embedder, outer, collection="work").line()  # absorbed again
    assert _sources_of_passages(store) == {str(outer.resolve())}
    assert sum("Personal things" in t for t in store.passages.to_arrow()["text"].to_pylist()) == 1


@pytest.mark.parametrize("name", ["", "a b", "../x", "-x", "x" * 41])
def test_bad_collection_names_are_one_line(name):
    with pytest.raises(BadInputError, match="collection name"):
        collections.check_name(name)


def test_cli_collections_add_list_ask_within_and_remove(cli, tmp_path):
    work = write(tmp_path / "work", "plan.md", "# Plan\n\nThe launch is on Monday.\n").parent
    diary = write(tmp_path, "diary.txt", "Dear diary, the garden is green.\n")
    assert cli("index", "add", str(work), "--collection", "work")[0] == 0
    code, out, _ = cli("index", "add", str(diary), "-c", "personal")
    assert code == 0 and "1 indexed" in out and "collection personal" in out
    code, out, _ = cli("index", "collections")
    lines = out.strip().splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ["personal", "work"] and "1 documents" in lines[0]
    assert lines[-1].startswith("index on disk: ")

    for name, expected in (("work", "plan.md"), ("personal", "diary.txt")):
        code, out, err = cli("ask", "When?", "-s", "rag", "--json", "--collection", name)
        assert code == 0, err
        retrieved = [json.loads(line) for line in out.splitlines() if '"retrieved"' in line]
        paths = {p["path"] for event in retrieved for p in event["passages"]}
        assert paths == {expected}
    assert "no collection 'nope'" in one_error_line(cli("ask", "When?", "--collection", "nope"))

    code, out, _ = cli("index", "remove", "--collection", "personal")
    assert code == 0 and "1 sources" in out
    code, out, _ = cli("index", "collections")
    assert out.split()[0] == "work"
    assert "one of them" in one_error_line(cli("index", "remove"))


def test_status_and_collections_print_the_same_sizes(cli, tmp_path):
    """The files' own size and the index's size on disk, named alike in both commands."""
    work = write(tmp_path / "work", "plan.md", "# Plan\n\nThe launch is on Monday.\n" * 40).parent
    assert cli("index", "add", str(work), "--collection", "work")[0] == 0
    _, status, _ = cli("index", "status")
    _, listed, _ = cli("index", "collections")
    files = next(line for line in status.splitlines() if line.startswith("documents:")).split("(")[1].split(")")[0]
    assert files.endswith(" of files") and files in listed  # e.g. "1.2 KB of files"
    on_disk = next(line for line in status.splitlines() if line.startswith("index on disk:")).split()[3:5]
    assert f"index on disk: {' '.join(on_disk)} for all collections" in listed
