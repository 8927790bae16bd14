"""Folder and passage-file indexing against hostile input (issue 13): names that are not UTF-8,
folders that cannot be entered, text without spaces, huge documents and zip bombs, nested
sources, the index inside the indexed folder, files changing while read, duplicate ids."""
from __future__ import annotations

import base64
import io
import json
import os
import random
import zipfile

import pytest

from index_builder import embedding, folder as folder_module
from index_builder.chunking import MAX_HEADING_CHARS, MAX_PASSAGE_WEIGHT, text_weight
from index_builder.folder import index_folder
from index_builder.passages import SeenIds, index_passages
from index_builder.pipeline import EMBED_BATCH_PASSAGES, EMBED_SLICE
from index_builder.store import IndexStore
from models.errors import AssistantError, Cancelled
from helpers.hash_embedder import HashEmbedder, ids, write


@pytest.fixture
def store(tmp_path):
    return IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)


def rows(store):
    return store.passages.to_arrow().to_pylist()


def make_file(raw_path: bytes, data: bytes) -> None:
    """Create a file by its bytes path (names that are not UTF-8 cannot go through str)."""
    os.makedirs(os.path.dirname(raw_path), exist_ok=True)
    fd = os.open(raw_path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


# -- 1. names ------------------------------------------------------------------------------
def test_names_that_are_not_utf8_or_hold_newlines_are_indexed_under_escaped_names(tmp_path, store):
    root = os.fsencode(tmp_path / "docs")
    make_file(root + b"/good.txt", b"Herons nest in the marsh.")
    make_file(root + b"/bad\xffname.txt", b"Otters eat urchins.")
    make_file(root + b"/sub\xfedir/inner.txt", b"Kestrels hover over fields.")
    make_file(root + b"/line\nbreak.txt", b"Newts live in ponds.")
    summary = index_folder(store, HashEmbedder(), tmp_path / "docs")
    assert sorted(summary.indexed) == ["bad\\xffname.txt", "good.txt", "line\\nbreak.txt",
                                       "sub\\xfedir/inner.txt"]
    assert not summary.skipped and "\n" not in summary.line()
    stored = rows(store)
    assert {r["path"] for r in stored} == set(summary.indexed)
    assert any("Otters" in r["text"] for r in stored) and any("Kestrels" in r["text"] for r in stored)
    again = index_folder(store, HashEmbedder(), tmp_path / "docs")
    assert again.unchanged == 4 and not (again.indexed or again.updated or again.removed)


def test_a_folder_whose_own_name_is_not_utf8_can_be_indexed(tmp_path, store):
    root = os.fsencode(tmp_path) + b"/caf\xe9 notes"
    make_file(root + b"/a.txt", b"The lighthouse keeper rows at dawn.")
    summary = index_folder(store, HashEmbedder(), os.fsdecode(root))
    assert summary.indexed == ["a.txt"] and summary.source.endswith("/caf\\xe9 notes")
    assert set(store.meta["sources"]) == {summary.source}
    assert {r["source"] for r in rows(store)} == {summary.source}
    assert index_folder(store, HashEmbedder(), os.fsdecode(root)).unchanged == 1


# -- 2. folders that cannot be entered -------------------------------------------------------
@pytest.mark.parametrize("mode", ["000", "644"])
def test_an_unreadable_subfolder_is_skipped_and_named(tmp_path, store, monkeypatch, mode):
    folder = tmp_path / "docs"
    write(folder, "open.txt", "Readable text about herons.")
    write(folder, "locked/secret.txt", "Hidden text about otters.")
    write(folder, "zeta/later.txt", "Text after the locked folder.")
    locked = str(folder / "locked")
    # Tests run as root, which ignores permissions: raise what a user without them would get.
    real_scandir, real_stat = os.scandir, os.stat

    def denied(path):
        raise PermissionError(13, "Permission denied", path)

    def scandir(path="."):
        if mode == "000" and os.fspath(path) == locked:
            denied(path)
        return real_scandir(path)

    def stat(path, *args, **kwargs):  # the folder's entries cannot be reached in either mode
        if os.fspath(path).startswith(locked + os.sep):
            denied(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)
    summary = index_folder(store, HashEmbedder(), folder)
    assert sorted(summary.indexed) == ["open.txt", "zeta/later.txt"]
    assert summary.skipped == [("locked/", "cannot open folder: Permission denied")]


def test_an_unreadable_root_is_one_error_and_keeps_the_index(tmp_path, store, monkeypatch):
    folder = tmp_path / "docs"
    write(folder, "a.txt", "Some text about newts.")
    index_folder(store, HashEmbedder(), folder)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(AssistantError, match="cannot read folder .*Permission denied"):
        index_folder(store, HashEmbedder(), folder)
    assert store.passages.count_rows() == 1


# -- 3. passage size bound ---------------------------------------------------------------------
def test_text_without_spaces_and_huge_headings_make_bounded_passages(tmp_path, store):
    folder = tmp_path / "docs"
    rng = random.Random(3)
    chinese = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(21_000))  # 63 KB of UTF-8
    write(folder, "chinese.txt", chinese)
    write(folder, "blob.txt", base64.b64encode(rng.randbytes(225_000)).decode())  # 300,000 characters
    heading = "word" * 40_000  # a 160 KB heading
    write(folder, "heading.md", f"# {heading}\n\nShort body.\n\n## {heading[:5000]}\n\nMore body.\n")
    summary = index_folder(store, HashEmbedder(), folder)
    assert sorted(summary.indexed) == ["blob.txt", "chinese.txt", "heading.md"]
    stored = rows(store)
    assert max(text_weight(r["text"]) for r in stored) <= MAX_PASSAGE_WEIGHT
    assert max(len(r["title"]) for r in stored) <= MAX_HEADING_CHARS
    assert max(len(r["section"]) for r in stored) <= MAX_HEADING_CHARS
    # Cut, not lost: the passages hold every character, in order.
    by_path = {}
    for r in sorted(stored, key=lambda r: r["ordinal"]):
        by_path.setdefault(r["path"], []).append(r["text"])
    assert "".join(by_path["chinese.txt"]).replace(" ", "") == chinese
    assert len(by_path["chinese.txt"]) >= 21_000 * 3 // MAX_PASSAGE_WEIGHT
    assert "".join(by_path["heading.md"]).count("word") >= 41_000  # the long headings stay as text


def test_passage_file_passages_are_bounded_too(tmp_path, store):
    file = tmp_path / "psgs.jsonl"
    long_text = "x" * 5000
    file.write_text(json.dumps({"id": "7", "title": "T" * 1000, "text": long_text}) + "\n"
                    + json.dumps({"id": "8", "title": "Other", "text": "short"}) + "\n")
    index_passages(store, HashEmbedder(), file)
    stored = rows(store)
    assert max(len(r["text"]) for r in stored) <= MAX_PASSAGE_WEIGHT
    assert "".join(r["text"] for r in stored if r["id"].startswith("7")) == long_text
    assert sorted(r["id"] for r in stored) == ["7", "7~1", "7~2", "7~3", "7~4", "8"]


# -- 6. large documents and zip bombs ------------------------------------------------------------
class BatchEmbedder(HashEmbedder):
    def __init__(self):
        super().__init__()
        self.batches: list[int] = []

    def encode(self, texts):
        self.batches.append(len(texts))
        return super().encode(texts)


def big_text(paragraphs: int, tag: str) -> str:
    return "\n\n".join(f"{tag} paragraph {i} " + "word " * 95 for i in range(paragraphs))


def test_a_large_document_is_written_as_text_whole_then_embedded_in_bounded_batches(tmp_path, store, monkeypatch):
    monkeypatch.setattr(embedding, "COMMIT_SECONDS", 0.0)  # a commit as soon as a batch is full
    folder = tmp_path / "docs"
    write(folder, "big.txt", big_text(2000, "v1"))  # ~1.2 MB, 2,000 passages
    write(folder, "small.txt", "A small file.")
    seen = []  # what the index held each time a slice was about to be embedded

    class Watching(BatchEmbedder):
        def encode(self, texts):
            seen.append((store.passages.count_rows(), store.documents.count_rows("path = 'big.txt'"),
                         store.passages.count_rows("vector IS NULL")))
            return super().encode(texts)

    embedder = Watching()
    summary = index_folder(store, embedder, folder)
    assert summary.passages == 2001 and max(embedder.batches) <= EMBED_SLICE
    # Every passage and the document's row (its text committed) before the first vector.
    assert all(rows == 2001 and row == 1 for rows, row, _ in seen)
    waiting = [w for _, _, w in seen]
    assert waiting[0] == 2001 and waiting == sorted(waiting, reverse=True)
    steps = {a - b for a, b in zip(waiting, waiting[1:]) if a != b}
    assert steps and max(steps) <= EMBED_BATCH_PASSAGES  # vectors committed a bounded batch at a time
    assert store.passages.count_rows("vector IS NULL") == 0


def test_stop_inside_a_large_document_is_prompt_and_loses_nothing(tmp_path):
    folder = tmp_path / "docs"
    write(folder, "big.txt", big_text(1500, "v1"))
    clean = IndexStore.open_or_create(tmp_path / "clean", HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(clean, HashEmbedder(), folder)
    store = IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)

    embedder = BatchEmbedder()
    with pytest.raises(Cancelled):  # Ctrl-C during the first slice: obeyed after it
        index_folder(store, embedder, folder, should_stop=lambda: bool(embedder.batches))
    assert len(embedder.batches) == 1
    # The text is in (searchable), and the slice embedded before the stop was kept.
    assert ids(store) == ids(clean) and store.status().waiting == 1500 - embedder.batches[0]
    index_folder(store, HashEmbedder(), folder)
    assert ids(store) == ids(clean) and store.status().waiting == 0

    # A changed large document stopped while embedding: its new text replaced the old at once.
    write(folder, "big.txt", big_text(1500, "v2"))
    embedder = BatchEmbedder()
    with pytest.raises(Cancelled):
        index_folder(store, embedder, folder, should_stop=lambda: len(embedder.batches) >= 2)
    texts = [r["text"] for r in rows(store)]
    assert len(texts) == 1500 and all(t.startswith("v2") for t in texts) and store.status().waiting > 0
    index_folder(store, HashEmbedder(), folder)
    texts = [r["text"] for r in rows(store)]
    assert len(texts) == 1500 and all(t.startswith("v2") for t in texts) and ids(store) == ids(clean)
    assert store.status().waiting == 0


def zip_bomb_docx(unpacked_mb: int) -> bytes:
    from lab.fixtures.doc_files import make_docx

    small = zipfile.ZipFile(io.BytesIO(make_docx("Bomb", {"Part": "Tiny text."})))
    xml = small.read("word/document.xml").decode()
    filler = '<w:p><w:r><w:t>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</w:t></w:r></w:p>'
    body = filler * (unpacked_mb * 1024 * 1024 // len(filler))
    xml = xml.replace("<w:body>", "<w:body>" + body, 1)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for item in small.infolist():
            bomb.writestr(item, xml if item.filename == "word/document.xml" else small.read(item))
    return out.getvalue()


def test_a_zip_bomb_docx_is_refused_with_a_reason(tmp_path, store):
    folder = tmp_path / "docs"
    data = zip_bomb_docx(24)
    assert len(data) < 200_000
    (folder).mkdir()
    (folder / "bomb.docx").write_bytes(data)
    write(folder, "fine.txt", "Fine text.")
    summary = index_folder(store, HashEmbedder(), folder)
    assert summary.indexed == ["fine.txt"]
    [(name, reason)] = summary.skipped
    assert name == "bomb.docx" and "zip bomb" in reason and "to 25 MB" in reason


def test_zip_size_limit(monkeypatch):
    from index_builder.extract import Unreadable, archive, extract
    from lab.fixtures.doc_files import make_docx

    data = make_docx("Fine", {"Part": "Some text."})
    assert extract(__import__("pathlib").Path("a.docx"), data).title == "Fine"
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(Unreadable, match="unpacks to .* possible zip bomb"):
        extract(__import__("pathlib").Path("a.docx"), data)


# -- 8. nested sources -------------------------------------------------------------------------
def nested_folder(tmp_path):
    folder = tmp_path / "docs"
    write(folder, "a.txt", "Text about herons.")
    write(folder, "child/c.txt", "Text about otters.")
    write(folder, ".hidden/h.txt", "Text about newts.")
    return folder


def test_a_subfolder_of_an_indexed_folder_is_not_stored_twice(tmp_path, store):
    folder = nested_folder(tmp_path)
    index_folder(store, HashEmbedder(), folder)
    before = ids(store)
    write(folder, "child/d.txt", "New text about kestrels.")
    summary = index_folder(store, HashEmbedder(), folder / "child")
    texts = [r["text"] for r in rows(store)]
    assert len(texts) == len(set(texts)) == 3
    assert set(store.meta["sources"]) == {str(folder)} and set(before) < set(ids(store))
    assert summary.indexed == ["child/d.txt"] and summary.source == str(folder)
    assert f"already indexed as part of {folder}" in summary.line()
    # A folder the parent's walk does not enter (hidden) is a source of its own.
    hidden = index_folder(store, HashEmbedder(), folder / ".hidden")
    assert hidden.indexed == ["h.txt"] and hidden.source == str(folder / ".hidden")


def test_a_parent_folder_absorbs_an_indexed_subfolder(tmp_path, store):
    folder = nested_folder(tmp_path)
    index_folder(store, HashEmbedder(), folder / "child")
    index_folder(store, HashEmbedder(), folder / ".hidden")
    summary = index_folder(store, HashEmbedder(), folder)
    assert f"{folder / 'child'} was indexed on its own: now part of {folder}" in summary.line()
    assert set(store.meta["sources"]) == {str(folder), str(folder / ".hidden")}
    paths = sorted((r["source"], r["path"]) for r in rows(store))
    assert paths == [(str(folder), "a.txt"), (str(folder), "child/c.txt"), (str(folder / ".hidden"), "h.txt")]


# -- 11. the index inside the folder, files changing while read, duplicate ids -----------------
def test_an_index_inside_the_indexed_folder_is_skipped(tmp_path):
    folder = tmp_path / "docs"
    write(folder, "a.txt", "Text about herons.")
    store = IndexStore.open_or_create(folder / "my-index", HashEmbedder.model_id, HashEmbedder.dim)
    summary = index_folder(store, HashEmbedder(), folder)
    assert summary.indexed == ["a.txt"] and ("my-index/", "the index itself") in summary.skipped
    with pytest.raises(AssistantError, match="the index's own folder"):
        index_folder(store, HashEmbedder(), folder / "my-index")


@pytest.fixture
def hash_calls(monkeypatch):
    calls = []
    real = folder_module.content_hash
    monkeypatch.setattr(folder_module, "content_hash", lambda data: calls.append(1) or real(data))
    return calls


def test_a_file_changed_between_walk_and_read_is_not_rehashed_on_every_run(tmp_path, store, monkeypatch,
                                                                            hash_calls):
    folder = tmp_path / "docs"
    path = write(folder, "a.txt", "First version.")
    real_walk = folder_module.walk_folder

    def walk_then_edit(*args, **kwargs):
        walked = real_walk(*args, **kwargs)
        path.write_text("First version, edited while the run was going.")
        return walked

    monkeypatch.setattr(folder_module, "walk_folder", walk_then_edit)
    index_folder(store, HashEmbedder(), folder)
    monkeypatch.setattr(folder_module, "walk_folder", real_walk)
    hash_calls.clear()
    for _ in range(2):
        summary = index_folder(store, HashEmbedder(), folder)
        assert summary.unchanged == 1
    assert hash_calls == []


def test_a_file_changed_while_read_is_read_again_once(tmp_path, store, monkeypatch, hash_calls):
    folder = tmp_path / "docs"
    write(folder, "a.txt", "Some text.")
    real_fstat = os.fstat
    seen = []

    class Moved:  # what fstat says after the read: the file was written meanwhile
        def __init__(self, st):
            self.st_size, self.st_mtime_ns, self.st_mtime = st.st_size, st.st_mtime_ns + 1, st.st_mtime

    def fstat(fd):
        seen.append(fd)
        return real_fstat(fd) if len(seen) == 1 else Moved(real_fstat(fd))

    monkeypatch.setattr(os, "fstat", fstat)
    index_folder(store, HashEmbedder(), folder)
    monkeypatch.setattr(os, "fstat", real_fstat)
    hash_calls.clear()
    assert index_folder(store, HashEmbedder(), folder).unchanged == 1
    assert len(hash_calls) == 1  # read again once, same content: recorded
    assert index_folder(store, HashEmbedder(), folder).unchanged == 1
    assert len(hash_calls) == 1


def test_duplicate_passage_ids_keep_the_first(tmp_path, store):
    file = tmp_path / "psgs.jsonl"
    lines = [{"id": "1", "title": "Heron", "text": "Herons nest."},
             {"id": "2", "title": "Heron", "text": "Herons fish."},
             {"id": "1", "title": "Otter", "text": "Otters swim."},
             {"id": "x", "title": "Otter", "text": "Otters eat."},
             {"id": "x", "title": "Otter", "text": "Otters again."}]
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = index_passages(store, HashEmbedder(), file)
    stored = rows(store)
    assert sorted(r["id"] for r in stored) == ["1", "2", "x"]
    assert {r["text"] for r in stored} == {"Herons nest.", "Herons fish.", "Otters eat."}
    assert summary.duplicate_ids == 2 and "2 passages with a duplicate id skipped" in summary.line()
    assert index_passages(store, HashEmbedder(), file).unchanged == 2


def test_seen_ids_tell_numbers_from_strings():
    seen = SeenIds()
    assert seen.add("5") and seen.add("05") and seen.add("500000000") and seen.add("abc")
    assert not seen.add("5") and not seen.add("05") and not seen.add("abc") and not seen.add("500000000")
    assert len(seen.bits) <= 1 << 25


def test_lone_surrogates_in_a_passage_file_are_stored_replaced(tmp_path, store):
    file = tmp_path / "psgs.jsonl"
    file.write_text('{"id": "1", "title": "Bad \\ud800 title", "text": "Broken \\udcff text."}\n')
    index_passages(store, HashEmbedder(), file)
    [row] = rows(store)
    assert row["text"] == "Broken \ufffd text." and row["title"] == "Bad \ufffd title"


def test_a_passage_file_whose_name_is_not_utf8_can_be_indexed(tmp_path, store):
    raw = os.fsencode(tmp_path) + b"/psgs\xff.jsonl"
    make_file(raw, json.dumps({"id": "1", "title": "Heron", "text": "Herons nest."}).encode() + b"\n")
    assert index_passages(store, HashEmbedder(), os.fsdecode(raw)).passages == 1
    assert {r["source"] for r in rows(store)} == {str(tmp_path) + "/psgs\\xff.jsonl"}
