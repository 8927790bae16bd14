"""The personal-documents folder's conversions, manifest drift and index check (lab/personal_docs)."""
from pathlib import Path

import docx

from helpers.hash_embedder import HashEmbedder
from lab.personal_docs import convert
from lab.personal_docs.index_check import index_check
from lab.personal_docs.manifest import drift_line, drifted, text_sha256
from lab.personal_docs.sources import ITEMS

RST = """:mod:`fnmatch` --- Unix filename pattern matching
=================================================

.. module:: fnmatch
   :synopsis: Unix shell style filename pattern matching.

.. index:: single: filenames; wildcard expansion

Use :func:`fnmatchcase` for a ``case-sensitive`` test, see `the docs <https://x.org>`_::

   import fnmatch
   fnmatch.fnmatch('a.txt', '*.txt')

.. function:: filter(names, pattern)

   Construct a list.

   .. versionadded:: 3.2

Section
-------

Text.
"""


def test_rst_becomes_markdown_without_directives_or_roles():
    md = convert.rst_markdown(RST)
    assert md.startswith("# `fnmatch` --- Unix filename pattern matching\n")
    assert "module::" not in md and "synopsis" not in md and "wildcard expansion" not in md
    assert "Use `fnmatchcase` for a `case-sensitive` test, see the docs:" in md
    assert "```\n\nimport fnmatch\nfnmatch.fnmatch('a.txt', '*.txt')\n\n```" in md
    assert "### `filter(names, pattern)`" in md and "**Version added:** 3.2" in md
    assert "\n## Section\n" in md


def test_man_text_becomes_docx_sections(tmp_path):
    page = ("NOHUP(1)        User Commands        NOHUP(1)\n\nNAME\n       nohup - run a command\n"
            "       immune to hangups\n\nAUTHOR\n       Written by Jim Meyering.\n\nGNU coreutils 9.1   NOHUP(1)\n")
    blocks = convert.man_blocks(page)
    assert blocks == [("h1", "Name"), ("p", "nohup - run a command immune to hangups"), ("h1", "Author"),
                      ("p", "Written by Jim Meyering.")]
    path = tmp_path / "nohup.docx"
    path.write_bytes(convert.docx_bytes("nohup manual", blocks))
    document = docx.Document(str(path))
    assert [p.text for p in document.paragraphs][:3] == ["nohup manual", "Name", "nohup - run a command immune to hangups"]
    assert document.core_properties.title == "nohup manual"


def test_drift_is_found_per_file_and_said_in_one_line(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\nbug-bc@gnu.org\n")
    (tmp_path / "b.txt").write_text("Written by Paul Eggert.\n")
    manifest = {name: {"sha256": text_sha256(tmp_path / name)} for name in ("notes/a.md", "b.txt")}
    assert drifted(tmp_path, manifest) == {} and drift_line({}) == ""
    (tmp_path / "notes" / "a.md").write_text("# A\n\nbug-gawk@gnu.org\n")
    (tmp_path / "b.txt").unlink()
    drift = drifted(tmp_path, manifest)
    assert drift == {"notes/a.md": "text changed", "b.txt": "missing"}
    assert "\n" not in drift_line(drift) and "2 of the folder's files" in drift_line(drift)


def test_the_folder_plan_has_every_format_and_no_reserved_file():
    suffixes = [Path(item.dest).suffix for item in ITEMS]
    assert len(ITEMS) >= 50 and all(suffixes.count(s) >= 8 for s in (".txt", ".md", ".html", ".pdf", ".docx"))
    reserved = ("readme", "authors", "news", "copyright", "metadata", "license", "changelog")
    assert not any(word in item.source.lower() for item in ITEMS for word in reserved)
    assert len({item.dest for item in ITEMS}) == len(ITEMS)


def test_index_check_names_skipped_files(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("The gzip command compresses at level 6 by default.\n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    summary, skipped = index_check(folder, tmp_path / "data", embedder_factory=lambda settings: HashEmbedder())
    assert "1 indexed" in summary and len(skipped) == 1 and skipped[0].startswith("broken.pdf: ")
