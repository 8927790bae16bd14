"""A web page without headings inside takes its sections from what structures it: list items'
bold lead-ins, definition terms, table captions (index_builder/extract/html_parts.py)."""
from __future__ import annotations

from pathlib import Path

from index_builder.extract import extract

LONG = ("reads every file named after it and writes them one after another into the archive, keeping "
        "their owners, modes and times as they are on disk unless told otherwise")


def sections(body: str) -> list[tuple[str, str]]:
    page = f"<html><head><title>tar options</title></head><body><main>{body}</main></body></html>"
    return [(s.heading, s.text) for s in extract(Path("tar.html"), page.encode()).sections]


def test_list_items_lead_ins_name_their_sections():
    got = sections(f"<h1>tar options</h1><p>What tar reads.</p><ul>"
                   f"<li><strong>--create</strong>: {LONG} into a new archive.</li>"
                   f"<li><p><b>--extract:</b> {LONG} out of the archive.</p></li></ul><p>Exit status 0.</p>")
    assert [heading for heading, _ in got] == ["tar options", "tar options > --create",
                                               "tar options > --extract", "tar options"]
    assert got[1][1].startswith("--create: reads every file")  # the lead-in stays in the text
    assert got[3][1] == "Exit status 0."  # after the list: the page's heading again


def test_terms_and_captions_name_their_sections():
    got = sections(f"<dl><dt>Exit status ¶</dt><dd>{LONG}; 0 on success.</dd>"
                   f"<dt>Environment</dt><dd>{LONG}; TAPE names the drive.</dd></dl>"
                   f"<table><caption>Compression</caption><tr><td>-z</td><td>{LONG} through gzip</td></tr></table>")
    assert [heading for heading, _ in got] == ["Exit status", "Environment", "Compression"]


def test_short_parts_share_a_passage_named_by_each():
    got = sections("<ul><li><b>-v</b>: say more.</li><li><b>-q</b>: say less.</li></ul>")
    assert got == [("-v, -q", "-v: say more.\n\n-q: say less.")]


def test_a_page_with_headings_inside_keeps_them():
    got = sections(f"<h1>tar</h1><h2>Options</h2><ul><li><b>--create</b>: {LONG}.</li>"
                   f"<li><b>--extract</b>: {LONG}.</li></ul>")
    assert [heading for heading, _ in got] == ["tar > Options"]


def test_bold_words_inside_an_item_or_a_bold_item_alone_name_nothing():
    got = sections(f"<ul><li>Use <b>--create</b> to {LONG}.</li><li><b>All of this item is bold</b></li></ul>")
    assert {heading for heading, _ in got} == {""}
