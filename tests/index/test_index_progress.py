"""What a large folder's indexing shows and allows while it runs: passages/s and a time left
taken from committed work, what is committed searchable at once, files read ahead on a
producer thread (its errors raised in order, stopped when the indexer stops)."""
from __future__ import annotations

import threading
import time

import pytest

from assistant.cli.progress import progress_fields, time_left
from assistant.retrieval.retriever import HybridRetriever
from index_builder import pipeline
from index_builder.folder import index_folder
from index_builder.prefetch import with_passages
from index_builder.progress import Progress
from index_builder.store import IndexStore

from helpers.hash_embedder import HashEmbedder, write


@pytest.mark.parametrize("seconds, text", [(None, ""), (12, "under a minute left"), (299, "about 5 min left"),
                                           (7_790, "about 2 h 10 min left")])
def test_time_left_in_words(seconds, text):
    assert time_left(seconds) == text


def test_eta_is_the_rate_of_committed_work_and_none_before_any():
    progress = Progress(total_files=10, files_done=10, total_work=1000, started=time.monotonic() - 10)
    assert progress.eta_seconds is None  # every file read ahead, nothing embedded: no guess
    progress.work_done, progress.passages_done = 250, 50
    assert progress.eta_seconds == pytest.approx(30, rel=0.05)
    fields = progress_fields(progress, "files")
    assert fields["rate"] == "5 passages/s" and fields["left"] == "under a minute left"


def notes(folder, count, words=120):
    for i in range(count):
        write(folder, f"note{i:02d}.md", f"# Note {i}\n\n" + f"zq{i}marker " + "otter river " * (words // 2))


def test_unchanged_files_are_no_work_left(tmp_path):
    folder = tmp_path / "docs"
    notes(folder, 6)
    store = IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(store, HashEmbedder(), folder)
    write(folder, "note03.md", "# Note 3\n\nedited: herons now")
    reports = []
    index_folder(store, HashEmbedder(), folder, on_progress=reports.append)
    last = reports[-1]
    assert last.total_work == (folder / "note03.md").stat().st_size == last.work_done
    assert last.files_done == 6 and last.passages_embedded == last.embed_total == last.passages_done


def test_what_is_written_is_searchable_by_full_text_before_any_vector(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "TEXT_BATCH_PASSAGES", 1)  # one note per text batch
    folder = tmp_path / "docs"
    notes(folder, 5)
    index = tmp_path / "index"
    store = IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim)
    seen = []

    def look(progress):
        if progress.phase == "reading" and progress.passages_done == 3:  # notes 0-2 written, no vector yet
            reader = HybridRetriever(IndexStore.open(index), HashEmbedder())  # as `ask` opens it
            seen.append({p.path for p in reader.search("zq0marker zq1marker zq2marker zq3marker", 10)})
            seen.append({r["path"] for r in reader.by_text("zq1marker", 5)})
            seen.append(IndexStore.open(index).status().waiting)

    index_folder(store, HashEmbedder(), folder, on_progress=look)
    assert seen == [{"note00.md", "note01.md", "note02.md"}, {"note01.md"}, 3]
    assert store.status().waiting == 0


def test_a_producer_error_is_raised_in_order_and_an_early_stop_ends_the_producer():
    class Doc:
        def __init__(self, n):
            self.n = n

        def passages(self):
            return iter([f"p{self.n}"])

    def documents():
        yield Doc(1)
        yield Doc(2)
        raise OSError("disk went away")

    got = []
    with pytest.raises(OSError, match="disk went away"):
        for doc, passages in with_passages(documents()):
            got.append((doc.n, passages))
    assert got == [(1, ["p1"]), (2, ["p2"])]

    made = []

    def endless():
        n = 0
        while True:
            n += 1
            made.append(n)
            yield Doc(n)

    before = threading.active_count()
    stream = with_passages(endless(), depth=4)
    assert next(stream)[0].n == 1
    stream.close()  # what write_documents does when it stops
    assert threading.active_count() == before and len(made) <= 4 + 2
