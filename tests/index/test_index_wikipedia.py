"""Wikipedia dumps and passage files: articles only, clean text, ids kept, clear errors."""
from __future__ import annotations

import bz2
import json
from pathlib import Path

import pytest

from index_builder.passages import index_passages
from index_builder.store import IndexStore
from index_builder.wikipedia import index_wikipedia
from index_builder.wikitext import article_sections
from models.errors import AssistantError
from helpers.hash_embedder import HashEmbedder

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
ENWIKI = DATA / "mediawiki_xml" / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
MARKUP = ("{{", "[[", "<ref", "|}")


@pytest.fixture
def store(tmp_path):
    return IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)


def rows(store):
    return store.passages.to_arrow().select(["id", "title", "path", "section", "text"]).to_pylist()


def test_wikitext_is_cleaned():
    text = ("'''Heron''' is a [[bird]] of [[Ardeidae|the heron family]].<ref>Smith 2001</ref> "
            "{{Infobox bird|name=Heron}}\n{| class=wikitable\n|-\n| a || b\n|}\n"
            "[[File:Heron.jpg|thumb|A heron]] Herons eat fish.<!-- hidden -->\n"
            "== Habitat ==\nThey live near [https://example.org water].\n"
            "== References ==\n* {{cite book|title=Birds}}\n[[Category:Birds]]\n")
    sections = article_sections(text)
    assert [(s.heading, s.text) for s in sections] == [
        ("", "Heron is a bird of the heron family.\n\nHerons eat fish."),
        ("Habitat", "They live near water."),
    ]
    joined = " ".join(s.text for s in sections)
    assert "Herons eat fish." in joined and "the heron family" in joined
    for bad in MARKUP + ("Smith 2001", "Infobox", "Category", "thumb", "hidden", "cite book"):
        assert bad not in joined


@pytest.mark.skipif(not ENWIKI.is_file(), reason="shared enwiki dump not present")
def test_enwiki_dump_articles_without_markup(store):
    summary = index_wikipedia(store, HashEmbedder(), ENWIKI, limit=25)
    found = rows(store)
    assert summary.articles == 25 and len(found) == summary.passages > 25
    assert summary.skipped.get("redirects", 0) >= 1  # the dump starts with AccessibleComputing
    titles = {r["title"] for r in found}
    assert "AccessibleComputing" not in titles and "Anarchism" in titles
    for row in found:
        assert not any(m in row["text"] for m in MARKUP), (row["title"], row["text"][:200])
        assert row["path"] == row["title"].replace(" ", "_")
        assert len(row["text"].split()) <= 200
    assert 60 <= sum(len(r["text"].split()) for r in found) / len(found) <= 140  # ~100-word passages
    # Re-running the same dump re-embeds nothing.
    embedder = HashEmbedder()
    again = index_wikipedia(store, embedder, ENWIKI, limit=25)
    assert again.articles == 0 and again.unchanged == 25 and embedder.encoded == 0


def test_plain_xml_dump_and_bad_dumps(tmp_path, store):
    xml = ("<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\"><siteinfo><sitename>T</sitename>"
           "<namespaces><namespace key=\"0\" /></namespaces></siteinfo>"
           "<page><title>Otter</title><ns>0</ns><id>1</id><revision><id>1</id><text>"
           "'''Otters''' are [[mammal]]s that swim. {{Taxobox}}</text></revision></page>"
           "<page><title>Otter (disambiguation)</title><ns>0</ns><id>2</id><revision><id>2</id>"
           "<text>Otter may mean: {{disambiguation}}</text></revision></page>"
           "<page><title>Talk:Otter</title><ns>1</ns><id>3</id><revision><id>3</id><text>chat</text>"
           "</revision></page></mediawiki>")
    dump = tmp_path / "tiny.xml.bz2"
    dump.write_bytes(bz2.compress(xml.encode()))
    summary = index_wikipedia(store, HashEmbedder(), dump)
    assert [r["text"] for r in rows(store)] == ["Otters are mammals that swim."]
    assert summary.skipped == {"disambiguation pages": 1, "not articles": 1}

    with pytest.raises(AssistantError, match="no such dump"):
        index_wikipedia(store, HashEmbedder(), tmp_path / "missing.xml")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF-1.4")
    with pytest.raises(AssistantError, match="not a Wikipedia XML dump"):
        index_wikipedia(store, HashEmbedder(), tmp_path / "notes.pdf")
    (tmp_path / "cut-head.xml").write_text(xml[:60])
    with pytest.raises(AssistantError, match="cannot read dump"):
        index_wikipedia(store, HashEmbedder(), tmp_path / "cut-head.xml")


def test_cut_dump_keeps_what_was_read_and_siteinfo_is_optional(tmp_path):
    page = ("<page><title>{0}</title><ns>0</ns><id>1</id><revision><id>1</id><text>"
            "'''{0}s''' are [[animal]]s that swim.</text></revision></page>")
    head = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">'
    siteinfo = "<siteinfo><sitename>T</sitename></siteinfo>"
    full = head + siteinfo + page.format("Otter") + page.format("Beaver") + "</mediawiki>"
    cut = tmp_path / "cut.xml"
    cut.write_text(full[:full.index("Beaver") + 30])  # the second page is cut off mid-text
    store = IndexStore.open_or_create(tmp_path / "a", HashEmbedder.model_id, HashEmbedder.dim)
    summary = index_wikipedia(store, HashEmbedder(), cut)
    assert [r["title"] for r in rows(store)] == ["Otter"]
    assert summary.ended_early and "cut or damaged" in summary.line()

    bare = tmp_path / "no-siteinfo.xml"  # exports of single pages come without <siteinfo>
    bare.write_text(full.replace(siteinfo, ""))
    store = IndexStore.open_or_create(tmp_path / "b", HashEmbedder.model_id, HashEmbedder.dim)
    summary = index_wikipedia(store, HashEmbedder(), bare)
    texts = sorted(r["text"] for r in rows(store))
    assert texts == ["Beavers are animals that swim.", "Otters are animals that swim."]
    assert not summary.ended_early


def test_passage_files_keep_ids(tmp_path, store):
    jsonl = tmp_path / "corpus.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in [
        {"id": "p1", "title": "Heron", "text": "Herons wade in shallow water."},
        {"id": "p2", "title": "Heron", "text": "Herons eat fish."},
        {"id": "p3", "title": "Otter", "text": "Otters swim."},
    ]))
    tsv = tmp_path / "psgs.tsv"
    tsv.write_text('id\ttext\ttitle\n7\t"Aaron is a ""prophet""."\tAaron\n8\tBeavers build dams.\tBeaver\n')
    first = index_passages(store, HashEmbedder(), jsonl)
    index_passages(store, HashEmbedder(), tsv)
    got = {r["id"]: (r["title"], r["text"]) for r in rows(store)}
    assert got == {"p1": ("Heron", "Herons wade in shallow water."), "p2": ("Heron", "Herons eat fish."),
                   "p3": ("Otter", "Otters swim."), "7": ("Aaron", 'Aaron is a "prophet".'),
                   "8": ("Beaver", "Beavers build dams.")}
    assert first.documents == 2
    jsonl.write_text(json.dumps({"id": "p3", "title": "Otter", "text": "Otters swim fast."}))
    again = index_passages(store, HashEmbedder(), jsonl)
    assert (again.documents, again.removed) == (1, 1) and len(rows(store)) == 3

    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(AssistantError, match="not a JSONL passage file"):
        index_passages(store, HashEmbedder(), bad)
    with pytest.raises(AssistantError, match="passage files are"):
        index_passages(store, HashEmbedder(), jsonl.rename(tmp_path / "corpus.csv"))


def test_dump_progress_is_shown_as_sizes_and_folder_progress_as_counts():
    from assistant.cli.progress import progress_fields
    from index_builder.progress import Progress

    dump = progress_fields(Progress(files_done=40, passages_done=900, bytes_done=3 * 1024 * 1024,
                                    total_bytes=12 * 1024 * 1024), "pages")
    assert dump["done"] == "3.0 MB/12.0 MB, 40 pages, 900 passages" and dump["completed"] / dump["total"] == 0.25
    assert dump["rate"].endswith("passages/s")
    folder = progress_fields(Progress(files_done=3, total_files=8), "files")
    assert folder["done"] == "3/8 files, 0 passages" and folder["total"] == 8
    assert progress_fields(Progress(files_done=3), "files")["done"] == "3 files, 0 passages"
