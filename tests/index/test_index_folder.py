"""Folder indexing: incremental runs process exactly what changed, the walk stays inside the
folder, bad files are skipped with reasons, cancellation commits and resumes."""
from __future__ import annotations

import os
import time

import pytest

from index_builder.folder import index_folder
from index_builder.store import IndexStore
from models.errors import Cancelled

from helpers.hash_embedder import HashEmbedder, ids, write


@pytest.fixture
def store(tmp_path):
    return IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)


def test_edit_delete_add_processes_exactly_those_three(tmp_path, store):
    folder = tmp_path / "docs"
    for i in range(5):
        write(folder, f"note{i}.md", f"# Note {i}\n\nThe number of this note is {i}.\n")
    embedder = HashEmbedder()
    first = index_folder(store, embedder, folder)
    assert len(first.indexed) == 5 and not first.skipped
    before = set(ids(store))

    write(folder, "note1.md", "# Note 1\n\nThis note was edited to talk about herons.\n")
    (folder / "note2.md").unlink()
    write(folder, "note9.md", "# Note 9\n\nA new note about otters.\n")
    os.utime(folder / "note3.md", (time.time() + 5, time.time() + 5))  # touched, same content
    embedder.encoded = 0
    second = index_folder(store, embedder, folder)
    assert (second.indexed, second.updated, second.removed) == (["note9.md"], ["note1.md"], ["note2.md"])
    assert second.unchanged == 3 and embedder.encoded == 2
    texts = " ".join(store.passages.to_arrow()["text"].to_pylist())
    assert "herons" in texts and "otters" in texts and "number of this note is 2" not in texts
    after = set(ids(store))
    assert len(after) == 5 and (before - after) == {p for p in before if p not in after}

    # The touched file's new mtime was recorded: the next run does not even read it.
    third = index_folder(store, embedder, folder)
    assert third.unchanged == 5 and not (third.indexed or third.updated or third.removed)


def test_walk_skips_hidden_tools_venvs_big_files_and_links(tmp_path, store):
    folder = tmp_path / "docs"
    write(folder, "keep.txt", "kept text")
    write(folder, ".hidden/secret.txt", "hidden")
    write(folder, "node_modules/lib.txt", "js")
    write(folder, "env1/pyvenv.cfg", "home = /usr")
    write(folder, "env1/notes.txt", "venv")
    write(folder, "big.txt", "word " * 5000)
    outside = write(tmp_path, "outside/elsewhere.txt", "outside text")
    os.symlink(outside.parent, folder / "out-link")
    os.symlink(folder, folder / "loop")
    summary = index_folder(store, HashEmbedder(), folder, max_size=1000)
    reasons = dict(summary.skipped)
    assert summary.indexed == ["keep.txt"]
    assert reasons[".hidden/"] == "hidden folder"
    assert reasons["node_modules/"].startswith("tool")
    assert reasons["env1/"] == "virtual environment"
    assert reasons["big.txt"].startswith("larger than --max-size")
    assert "out of the folder" in reasons["out-link/"] and "not followed" in reasons["loop/"]


def test_bad_files_are_skipped_with_reasons_and_removed_when_they_break(tmp_path, store):
    folder = tmp_path / "docs"
    write(folder, "good.md", "# Good\n\nFine text.\n")
    (folder / "bad.pdf").write_bytes(b"%PDF-1.4 not really")
    (folder / "blob.dat").write_bytes(bytes(range(256)) * 4)
    (folder / "empty.txt").write_bytes(b"")
    summary = index_folder(store, HashEmbedder(), folder)
    assert summary.indexed == ["good.md"]
    assert {rel for rel, _ in summary.skipped} == {"bad.pdf", "blob.dat", "empty.txt"}
    (folder / "good.md").write_bytes(b"")  # an indexed file that becomes unreadable leaves the index
    again = index_folder(store, HashEmbedder(), folder)
    assert again.removed == ["good.md"] and store.passages.count_rows() == 0


def test_should_stop_commits_the_batch_then_resume_matches_clean_build(tmp_path):
    folder = tmp_path / "docs"
    for i in range(40):
        write(folder, f"doc{i:02d}.txt", "\n\n".join(f"Paragraph {j} of document {i} " + "word " * 90
                                                      for j in range(10)))
    clean = IndexStore.open_or_create(tmp_path / "clean", HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(clean, HashEmbedder(), folder)

    store = IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)
    reports = []
    with pytest.raises(Cancelled, match="run the same command again to resume"):
        index_folder(store, HashEmbedder(), folder, on_progress=reports.append,
                     should_stop=lambda: bool(reports) and reports[-1].passages_done > 0)
    # full text first: what was read is written (searchable by text); some passages still wait
    # for their vectors, which the resumed run gives them
    waiting = store.waiting_count()
    assert 0 < waiting <= store.passages.count_rows() <= clean.passages.count_rows()
    assert reports[-1].total_files == 40  # its time left: tests/index/test_index_progress_line.py
    resumed = index_folder(store, HashEmbedder(), folder)
    assert ids(store) == ids(clean)
    assert resumed.unchanged > 0 and not resumed.updated


def test_missing_folder_is_one_clear_error(tmp_path, store):
    from models.errors import AssistantError

    with pytest.raises(AssistantError, match="no such folder"):
        index_folder(store, HashEmbedder(), tmp_path / "nope")


def test_mixed_folder_in_one_run_names_every_skipped_file(tmp_path, store):
    from lab.fixtures.doc_files import make_docx, make_epub, make_pdf

    folder = tmp_path / "docs"
    write(folder, "otters.md", "# Otters\n\nSea otters eat urchins.\n")
    write(folder, "herons.txt", "Herons nest in the marsh.\n")
    write(folder, "page.html", "<html><head><title>Lighthouse</title></head><body><p>A keeper.</p></body></html>")
    (folder / "report.pdf").write_bytes(make_pdf(["Budget page one.", "Deadline page two."], title="Report"))
    (folder / "minutes.docx").write_bytes(make_docx("Minutes", {"Decisions": "A treasurer was chosen."}))
    (folder / "book.epub").write_bytes(make_epub("Tales", {"One": "The glacier guide climbed."}))
    (folder / "latin1.txt").write_bytes("Le café de Zoé ouvre à Besançon.\n".encode("latin-1"))
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj garbage")
    (folder / "blob.bin").write_bytes(bytes(range(256)) * 16)
    (folder / "empty.txt").write_bytes(b"")
    os.symlink(folder / "loopb", folder / "loopa")
    os.symlink(folder / "loopa", folder / "loopb")

    summary = index_folder(store, HashEmbedder(), folder)
    assert sorted(summary.indexed) == ["book.epub", "herons.txt", "latin1.txt", "minutes.docx", "otters.md",
                                       "page.html", "report.pdf"]
    reasons = dict(summary.skipped)
    assert set(reasons) == {"broken.pdf", "blob.bin", "empty.txt", "loopa", "loopb"}
    assert all(reasons.values()) and "loop" in reasons["loopa"]
    rows = store.passages.to_arrow().to_pylist()
    assert any("Zoé" in r["text"] for r in rows)  # decoded by its detected encoding
    assert {r["page"] for r in rows if r["path"] == "report.pdf"} == {1, 2}


def test_unchanged_files_of_a_format_read_differently_now_are_read_again(tmp_path, store, monkeypatch):
    """An index built before a format's extractor changed (a web page's main content only) would
    keep the old text until the file changed: its pages are read again, once, and said so."""
    import index_builder.extract as extract
    import index_builder.folder as folder_module

    folder = tmp_path / "docs"
    write(folder, "page.html", "<html><body><main><p>The heron nests by the river.</p></main>"
                               "<footer>Last updated on October 07, 2026.</footer></body></html>")
    write(folder, "note.md", "# Note\n\nOtters eat fish.\n")
    embedder = HashEmbedder()
    first = index_folder(store, embedder, folder)
    assert sorted(first.indexed) == ["note.md", "page.html"]
    source = first.source
    assert store.meta["sources"][source]["read_as"][".html"] == extract.READ_AS[".html"]
    again = index_folder(store, embedder, folder)
    assert again.unchanged == 2 and not again.updated and not again.notes

    del store.meta["sources"][source]["read_as"]  # as an index built before formats had a version
    store.save_meta()
    older = index_folder(store, embedder, folder)
    assert older.updated == ["page.html"] and older.unchanged == 1
    assert "1 unchanged files read again: this version reads html files better" in older.notes
    assert index_folder(store, embedder, folder).unchanged == 2  # once

    monkeypatch.setattr(folder_module, "READ_AS", {**extract.READ_AS, ".md": 2})
    monkeypatch.setattr(extract, "READ_AS", {**extract.READ_AS, ".md": 2})
    bumped = index_folder(store, embedder, folder)
    assert bumped.updated == ["note.md"] and bumped.unchanged == 1
    assert "Last updated" not in " ".join(store.passages.to_arrow()["text"].to_pylist())
