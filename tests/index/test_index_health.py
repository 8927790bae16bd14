"""`index status` verifies what it reports, `index repair` (and `index add`) rebuild what can be
rebuilt, and an interrupted run's unfinished document is neither searched nor counted (issue 34
items 2, 7 and 9)."""
from __future__ import annotations

import json
import shutil

import pytest

from index_builder.store import IndexStore
from helpers.cli_run import TinyEmbedder, cli  # noqa: F401  (cli is a fixture)


@pytest.fixture
def built(cli, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "heron.txt").write_text("Project Heron is led by Dana Smith. It ships in spring.")
    (folder / "otter.md").write_text("# Otters\n\nOtters eat clams and sleep holding hands.")
    index = tmp_path / "index"
    code, out, err = cli("index", "add", str(folder), "--index", str(index))
    assert code == 0, err
    return folder, index


def drop_search_indices(index):
    shutil.rmtree(index / "passages.lance" / "_indices")


def test_status_of_an_index_without_its_full_text_index_says_damaged_and_how_to_repair(cli, built):
    _, index = built
    drop_search_indices(index)
    code, out, err = cli("index", "status", "--index", str(index))
    assert code == 1 and "full-text index" in err and "assistant index repair" in err, (out, err)
    code, out, err = cli("index", "status", "--index", str(index), "--json")
    assert code == 1 and json.loads(out)["problems"], out


def test_repair_rebuilds_a_missing_full_text_index(cli, built):
    _, index = built
    drop_search_indices(index)
    code, out, err = cli("ask", "Who leads Project Heron?", "-s", "rag", "--index", str(index))
    assert code == 1 and "assistant index repair" in err, err
    code, out, err = cli("index", "repair", "--index", str(index))
    assert code == 0 and "full-text index" in out, err
    assert cli("index", "status", "--index", str(index))[0] == 0
    code, out, err = cli("ask", "Who leads Project Heron?", "-s", "rag", "--index", str(index))
    assert code == 0, err
    code, out, err = cli("index", "repair", "--index", str(index))
    assert code == 0 and "nothing to repair" in out


def test_index_add_of_an_unchanged_folder_repairs_the_full_text_index(cli, built):
    folder, index = built
    drop_search_indices(index)
    code, out, err = cli("index", "add", str(folder), "--index", str(index))
    assert code == 0, err
    code, out, err = cli("index", "status", "--index", str(index))
    assert code == 0, err


def test_a_lost_metadata_file_is_damage_that_repair_rebuilds(cli, built):
    folder, index = built
    (index / "assistant-index.json").unlink()
    code, out, err = cli("index", "status", "--index", str(index))
    assert code == 1 and "no index" not in err and "assistant-index.json is missing" in err, err
    assert "assistant index repair" in err
    code, out, err = cli("index", "repair", "--index", str(index))
    assert code == 0 and "metadata" in out, err
    status = IndexStore.open(index).status()
    assert [s.name for s in status.sources] == [str(folder.resolve())]
    assert status.source(str(folder.resolve())).documents == 2


def test_an_unfinished_documents_passages_are_neither_searched_nor_counted(cli, built):
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.chunking import Chunk
    from index_builder.documents import Document
    from index_builder.pipeline import passage_row

    folder, index = built
    store = IndexStore.open(index)
    before = store.status()
    source = str(folder.resolve())
    half = Document(source=source, path="half.txt", title="half")
    rows = [passage_row(half, n, Chunk(id="", text=f"zqorphan passage {n} about Project Heron", section=""),
                        TinyEmbedder().encode(["x"])[0]) for n in range(3)]
    store.begin_source(source, "folder")  # a run that is killed after writing a batch
    store.write_batch(rows, [])
    store.close()
    store = IndexStore.open(index)
    after = store.status()
    assert after.passages == before.passages
    assert after.source(source).passages == before.source(source).passages
    found = HybridRetriever(store, TinyEmbedder()).search("zqorphan Project Heron", 10)
    assert found and not any("zqorphan" in p.text for p in found)
