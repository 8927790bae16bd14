"""`index repair` rebuilds everything the tables know (issue 65): after an interrupted `index add`
and a lost metadata file, the passages still waiting for their vectors are known again (and the
next `index add` embeds them); a garbled metadata file is mended, the garbled one kept beside it;
every message naming a damaged index offers the repair first, and repair itself names what it
cannot mend without offering itself again."""
from __future__ import annotations

import os
import shutil

import pytest

from assistant import service
from index_builder.folder import index_folder
from index_builder.store import META_FILE, IndexStore
from models import registry
from models.config import load_settings
from models.errors import Cancelled, IndexRepairable

from helpers.hash_embedder import HashEmbedder, write

FILES = 6


class StopsAtEmbedding(HashEmbedder):
    """Asks the run to stop once the embedding phase loads it: every passage is written as text
    and none has its vector, as after a kill between the phases."""

    def __init__(self):
        super().__init__()
        self.loaded = False

    def load(self):
        self.loaded = True


@pytest.fixture
def interrupted(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "get_embedder", lambda settings: HashEmbedder())
    folder, index = tmp_path / "docs", tmp_path / "index"
    for i in range(FILES):
        write(folder, f"note{i}.md", f"# Note {i}\n\nzq{i}marker herons nest in the reeds.")
    embedder = StopsAtEmbedding()
    store = IndexStore.open_or_create(index, embedder.model_id, embedder.dim)
    with pytest.raises(Cancelled):
        index_folder(store, embedder, folder, should_stop=lambda: embedder.loaded)
    store.close()
    assert IndexStore.open(index).status().waiting == FILES
    return folder, index, load_settings(index=index, data_dir=tmp_path / "data")


def test_a_lost_metadata_file_after_an_interrupted_add_keeps_its_waiting_passages(interrupted):
    folder, index, settings = interrupted
    (index / META_FILE).unlink()
    done = service.repair(settings)
    assert any("rebuilt from the tables" in line for line in done), done
    assert any(f"{FILES} passages wait for their vectors" in line for line in done), done
    status = IndexStore.open(index).status()
    assert status.waiting == FILES
    source = status.source(str(folder.resolve()))
    assert source.incomplete and source.documents == FILES  # the interrupted run is said unfinished

    store = IndexStore.open(index)
    index_folder(store, HashEmbedder(), folder)  # the next `index add` embeds them
    store.close()
    store = IndexStore.open(index)
    assert store.status().waiting == 0 == store.passages.count_rows("vector IS NULL")
    assert not store.status().source(str(folder.resolve())).incomplete


def test_repair_finds_waiting_passages_a_metadata_file_forgot(interrupted):
    _, index, settings = interrupted
    meta = IndexStore.open(index).meta
    meta.pop("vectors_pending")
    (index / META_FILE).write_text(__import__("json").dumps(meta))
    assert IndexStore.open(index).status().waiting == 0  # what the trial saw: forgotten
    service.repair(settings)
    assert IndexStore.open(index).status().waiting == FILES


@pytest.mark.parametrize("garble", ["{not json", "[]", '{"sources": 7}', "\x00\xff"])
def test_a_garbled_metadata_file_is_mended_by_repair_and_kept_beside(interrupted, garble):
    folder, index, settings = interrupted
    (index / META_FILE).write_text(garble, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(IndexRepairable, match="run `assistant index repair --index"):
        IndexStore.open(index)
    done = service.repair(settings)
    assert any(f"kept as {META_FILE}.damaged" in line for line in done), done
    assert (index / f"{META_FILE}.damaged").read_text(encoding="utf-8", errors="surrogateescape") == garble
    status = IndexStore.open(index).status()
    assert [s.name for s in status.sources] == [str(folder.resolve())] and status.waiting == FILES


def test_damage_offers_the_repair_first_and_repair_does_not_offer_itself(interrupted):
    _, index, settings = interrupted
    shutil.rmtree(index / "documents.lance")
    with pytest.raises(Exception) as opened:
        IndexStore.open(index)
    assert "run `assistant index repair" in str(opened.value) and "first" in str(opened.value)
    with pytest.raises(Exception) as repaired:
        service.repair(settings)
    message = str(repaired.value)
    assert "beyond repair" in message and "index repair" not in message and "delete" in message, message
    assert os.path.isdir(index / "passages.lance")  # nothing deleted by trying
