"""Leftovers of issue 13: every write of the pipeline goes through the store's one-line errors,
and names that are not UTF-8 work for `index remove`, Wikipedia dumps and dataset files as they
do for folders (stored and shown escaped, found again by the name the user types)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from index_builder import pipeline
from index_builder.chunking import Chunk
from index_builder.dataset_corpus import build_dataset_corpus
from index_builder.documents import Document
from index_builder.folder import index_folder
from index_builder.pipeline import passage_row
from index_builder.store import DocumentRecord, IndexStore
from index_builder.wikipedia import index_wikipedia
from helpers.hash_embedder import HashEmbedder
from models.errors import DiskFull

TINYWIKI = Path(__file__).resolve().parents[3] / "shared" / "data" / "mediawiki_xml" / \
    "tinywiki-latest-pages-articles.xml"
DISK_FULL = ("LanceError(IO): Generic LocalFileSystem error: Unable to write: No space left on device "
             "(os error 28), /home/build/lance/rust/lance-io/src/local.rs:196:31")


@pytest.fixture
def store(tmp_path):
    return IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)


@pytest.fixture
def small_batches(monkeypatch):
    """Two passages a batch: a document of a few paragraphs spans several batches."""
    monkeypatch.setattr(pipeline, "EMBED_BATCH_PASSAGES", 2)


def long_text(topic: str, paragraphs: int = 6) -> str:
    """Paragraphs of ~120 words: one passage each."""
    return "\n\n".join(" ".join(f"{topic} paragraph {p} word {w}." for w in range(40)) for p in range(paragraphs))


def rows(store):
    return store.passages.to_arrow().select(["doc_id", "source", "path", "text"]).to_pylist()


def table_class(store):
    return type(store.db.open_table("passages"))


# -- 1. the pipeline's writes go through the store ------------------------------------------
def test_a_batch_of_passages_without_document_rows_is_written_by_the_store(store):
    doc = Document(source="s", path="p.txt", title="P", sections=[], content_hash="h")
    row = passage_row(doc, 0, Chunk(text="Otters float on their backs."), HashEmbedder().encode(["x"])[0])
    store.write_batch([row], [])  # passages of a document still open: nothing to commit yet
    assert [r["text"] for r in rows(store)] == ["Otters float on their backs."]
    assert store.documents.count_rows() == 0
    store.write_batch([], [DocumentRecord(doc.doc_id, "s", "p.txt", "P", "h", 1, 1.0, 1)])
    assert store.documents.count_rows() == 1


def test_rename_doc_id_moves_only_that_documents_passages(store):
    embed = HashEmbedder().encode
    a = Document(source="s", path="a.txt", title="A", sections=[], content_hash="h")
    b = Document(source="s", path="b.txt", title="B", sections=[], content_hash="h")
    store.write_batch([passage_row(a, 0, Chunk(text="alpha"), embed(["a"])[0], "it's~new"),
                       passage_row(b, 0, Chunk(text="beta"), embed(["b"])[0])], [])
    store.rename_doc_id("it's~new", a.doc_id)  # a quote in an id is quoted, not SQL
    assert sorted((r["doc_id"], r["text"]) for r in rows(store)) == sorted(
        [(a.doc_id, "alpha"), (b.doc_id, "beta")])


def test_disk_full_in_a_batch_of_an_unfinished_document_is_the_one_line_error(tmp_path, store, small_batches,
                                                                               monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "long.txt").write_text(long_text("Herons"), encoding="utf-8")

    def full(self, *args, **kwargs):
        raise OSError(DISK_FULL)

    monkeypatch.setattr(table_class(store), "add", full)
    with pytest.raises(DiskFull, match="^disk full while writing the index at "):
        index_folder(store, HashEmbedder(), folder)


def test_disk_full_while_writing_vectors_is_the_one_line_error_and_a_rerun_finishes(tmp_path, store,
                                                                                  small_batches, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    note = folder / "long.txt"
    note.write_text(long_text("Herons"), encoding="utf-8")
    index_folder(store, HashEmbedder(), folder)
    note.write_text(long_text("Otters"), encoding="utf-8")
    os.utime(note, (1, 1))  # a changed mtime even on a coarse clock

    def full(self, *args, **kwargs):
        raise RuntimeError(DISK_FULL)

    with monkeypatch.context() as patched, pytest.raises(DiskFull):
        patched.setattr(table_class(store), "merge_insert", full)
        index_folder(store, HashEmbedder(), folder)
    # The new version's text was committed before the failure (searchable by full text); the same
    # command again, with space, gives its passages their vectors, once.
    written = [r["text"][:6] for r in rows(store)]
    assert written == ["Otters"] * len(written) and store.status().waiting == len(written) > 2
    index_folder(store, HashEmbedder(), folder)
    texts = [r["text"] for r in rows(store)]
    assert len(texts) == len(written) and all(t.startswith("Otters") for t in texts)
    assert store.status().waiting == 0


def test_a_replaced_document_spanning_batches_keeps_its_doc_id(tmp_path, store, small_batches):
    folder = tmp_path / "docs"
    folder.mkdir()
    note = folder / "long.txt"
    note.write_text(long_text("Herons"), encoding="utf-8")
    index_folder(store, HashEmbedder(), folder)
    doc_id = store.documents_of(str(folder.resolve()))["long.txt"].doc_id
    note.write_text(long_text("Otters", paragraphs=5), encoding="utf-8")
    os.utime(note, (1, 1))
    summary = index_folder(store, HashEmbedder(), folder)
    assert summary.updated == ["long.txt"] and summary.passages > 2  # written over several batches
    assert {r["doc_id"] for r in rows(store)} == {doc_id}
    assert [r["text"][:6] for r in rows(store)] == ["Otters"] * summary.passages


# -- 2. `index remove` of a folder whose name is not UTF-8 ----------------------------------
def cli(args: list, cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, ASSISTANT_CONFIG=os.devnull, ASSISTANT_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, env=env,
                          cwd=cwd, timeout=120)


@pytest.mark.parametrize("given", ["absolute", "relative"])
def test_index_remove_finds_a_folder_whose_name_is_not_utf8(tmp_path, given):
    raw = os.fsencode(tmp_path) + b"/caf\xe9 notes"
    os.mkdir(raw)
    with open(raw + b"/a.txt", "wb") as fh:
        fh.write(b"The lighthouse keeper rows at dawn.")
    index = tmp_path / "index"
    with IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim) as store:
        source = index_folder(store, HashEmbedder(), os.fsdecode(raw)).source
    assert source == f"{tmp_path}/caf\\xe9 notes"
    arg = raw if given == "absolute" else b"caf\xe9 notes"
    result = cli(["index", "remove", arg, "--index", str(index)], cwd=tmp_path, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode("utf-8").startswith(f"removed {source}: 1 passages")
    after = IndexStore.open(index)
    assert after.meta["sources"] == {} and after.passages.count_rows() == 0


def test_index_remove_of_an_unknown_name_that_is_not_utf8_says_so_in_one_line(tmp_path):
    index = tmp_path / "index"
    with IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim) as store:
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "a.txt").write_text("Kestrels hover.", encoding="utf-8")
        index_folder(store, HashEmbedder(), tmp_path / "docs")
    result = cli(["index", "remove", b"nowhere\xff", "--index", str(index)], cwd=tmp_path, tmp_path=tmp_path)
    err = result.stderr.decode("utf-8")
    assert result.returncode == 1
    assert err == f"error: no source nowhere\\xff in the index (sources: {tmp_path}/docs)\n"
    assert IndexStore.open(index).passages.count_rows() == 1


# -- 3. dump and dataset files whose names are not UTF-8 ------------------------------------
@pytest.mark.skipif(not TINYWIKI.is_file(), reason="shared tiny Wikipedia dump not present")
def test_a_wikipedia_dump_in_a_folder_whose_name_is_not_utf8_is_indexed_under_an_escaped_name(tmp_path, store):
    folder = os.fsencode(tmp_path) + b"/dumps\xff"
    os.mkdir(folder)
    raw = folder + b"/tiny\xfe.xml"
    shutil.copyfile(TINYWIKI, raw)
    dump = os.fsdecode(raw)
    summary = index_wikipedia(store, HashEmbedder(), dump)
    source = f"{tmp_path}/dumps\\xff/tiny\\xfe.xml"
    assert summary.articles > 0 and summary.passages > 0
    assert set(store.meta["sources"]) == {source}
    assert {r["source"] for r in rows(store)} == {source}
    again = index_wikipedia(store, HashEmbedder(), dump)  # the same source again, not a second one
    assert again.unchanged > 0 and set(store.meta["sources"]) == {source}
    assert {r["source"] for r in rows(store)} == {source}
    stored = store.passages.count_rows()
    assert store.remove_source(os.fsdecode(raw)) == stored  # found by its real name too
    assert store.passages.count_rows() == 0 and store.meta["sources"] == {}


def test_a_dataset_file_whose_name_is_not_utf8_builds_its_corpus(tmp_path):
    raw = os.fsencode(tmp_path) + b"/qa\xff.jsonl"
    record = {"_id": "q1", "question": "Where do herons nest?", "answer": "marsh",
              "context": [["Heron", ["Herons nest in the marsh."]], ["Otter", ["Otters eat urchins."]]],
              "supporting_facts": [["Heron", 0]]}
    with open(raw, "wb") as fh:
        fh.write(json.dumps(record).encode("utf-8") + b"\n")
    path, passages = build_dataset_corpus(Path(os.fsdecode(raw)), tmp_path / "data", HashEmbedder())
    assert passages == 2
    store = IndexStore.open(path)
    assert store.meta["sources"] == {"dataset:qa\\xff.jsonl": {
        "kind": "dataset", "file": f"{tmp_path}/qa\\xff.jsonl", "passages": 2, "complete": True}}
    assert build_dataset_corpus(Path(os.fsdecode(raw)), tmp_path / "data", HashEmbedder()) == (path, 2)
