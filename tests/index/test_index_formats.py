"""Every supported format is extracted with its title, headings and (for PDF) page numbers;
damaged and binary files become one reason each."""
from __future__ import annotations

from pathlib import Path

import pytest

from index_builder.extract import Unreadable, extract

from lab.fixtures.doc_files import make_docx, make_epub, make_odt, make_pdf


def texts(extracted) -> str:
    return "\n".join(s.text for s in extracted.sections)


def test_pdf_keeps_page_numbers_and_title():
    got = extract(Path("report.pdf"), make_pdf(["Otters eat clams.", "Beavers build dams."], title="Rivers"))
    assert got.title == "Rivers"
    assert [(s.page, s.text.strip()) for s in got.sections] == [(1, "Otters eat clams."), (2, "Beavers build dams.")]


def test_corrupt_pdf_is_one_reason():
    with pytest.raises(Unreadable, match="cannot read PDF"):
        extract(Path("broken.pdf"), b"%PDF-1.4\nthis is not really a pdf")


def test_docx_headings_and_tables():
    got = extract(Path("a.docx"), make_docx("Garden plan", {"Spring": "Plant beans.", "Autumn": "Harvest pumpkins."}))
    assert got.title == "Garden plan"
    assert [s.heading for s in got.sections] == ["Spring", "Autumn"]
    assert "Harvest pumpkins." in texts(got) and "cell one | cell two" in texts(got)


def test_odt_headings():
    got = extract(Path("notes.odt"), make_odt({"Trains": "The night train leaves at nine."}))
    assert got.sections[0].heading == "Trains" and "night train" in got.sections[0].text
    assert got.title == "notes"


def test_epub_chapters_in_order():
    got = extract(Path("b.epub"), make_epub("Sea Stories", {"One": "A whale sang.", "Two": "A gull laughed."}))
    assert got.title == "Sea Stories"
    assert [s.heading for s in got.sections] == ["One", "Two"]


def test_html_title_headings_and_no_script():
    page = (b"<html><head><title>Bakery</title><script>var x = 1;</script></head><body>"
            b"<h1>Bread</h1><p>Sourdough rises <b>slowly</b>.</p><h2>Rye</h2><ul><li>dense</li><li>dark</li></ul>"
            b"</body></html>")
    got = extract(Path("bake.html"), page)
    assert got.title == "Bakery"
    assert [(s.heading, s.text) for s in got.sections] == [("Bread", "Sourdough rises slowly."),
                                                           ("Bread > Rye", "dense\n\ndark")]
    assert "var x" not in texts(got)


def test_html_keeps_the_pages_main_content_not_the_sites_menus_and_footer():
    """A documentation page (Sphinx's shape): the sidebar, the related links and the footer with
    its "Last updated on" date are the site's; the article inside role="main" is the page."""
    page = (b"<html><head><title>secrets</title></head><body>"
            b"<div class='related' role='navigation'><a href='x'>previous</a> | <a href='y'>modules</a></div>"
            b"<div class='body' role='main'><h1>secrets</h1><p>New in version 3.6.</p>"
            b"<footer><p>Written by Ken.</p></footer></div>"
            b"<div class='sphinxsidebar' role='navigation'><h3>Previous topic</h3><p>hmac</p></div>"
            b"<div class='footer'>Last updated on October 07, 2026.</div></body></html>")
    got = texts(extract(Path("secrets.html"), page))
    assert "New in version 3.6." in got and "Written by Ken." in got  # an article's own footer stays
    for site in ("previous", "Previous topic", "hmac", "October 07"):
        assert site not in got
    # no main content marked: the whole body, less its landmarks
    plain = (b"<html><body><header role='banner'>Site</header><p>Otters eat clams.</p>"
             b"<div role='contentinfo'>Copyright 2026</div></body></html>")
    assert texts(extract(Path("otters.html"), plain)) == "Otters eat clams."


def test_rst_sections():
    source = "Guide\n=====\n\nIntro text.\n\nInstall\n-------\n\nRun the installer.\n".encode()
    got = extract(Path("guide.rst"), source)
    assert got.title == "Guide"
    assert ("Install", "Run the installer.") in [(s.heading, s.text) for s in got.sections]


def test_markdown_title_and_non_utf8_text():
    assert extract(Path("m.md"), b"# Heron\n\nA buoy.\n").title == "Heron"
    latin = "Le caf\u00e9 ouvre \u00e0 sept heures, la cr\u00e8me br\u00fbl\u00e9e est d\u00e9licieuse.".encode("cp1252")
    assert "café" in texts(extract(Path("menu.txt"), latin))


def test_unknown_text_file_is_read_and_binary_refused():
    assert "hello" in texts(extract(Path("notes.log"), b"hello from a log file\n"))
    with pytest.raises(Unreadable, match="binary"):
        extract(Path("image.bin"), bytes(range(256)) * 8)
    with pytest.raises(Unreadable, match="empty"):
        extract(Path("empty.txt"), b"")


def _two_font_pdf(producer: str) -> bytes:
    """A page as gropdf writes one: word spaces as TJ displacements, the last before a change of
    font after an empty string (which PDFium drops)."""
    import io

    stream = (b"BT /F1 12 Tf 72 720 Td [(in) -250 (a) -250 ()] TJ /F2 12 Tf [(not-installed) -250 ()] TJ "
              b"/F1 12 Tf [(state.)] TJ ET")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Bold >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R "
               b"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
               b"<< /Producer (%s) >>" % producer.encode()]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def test_a_groff_pdf_reads_with_its_words_apart():
    got = extract(Path("man.pdf"), _two_font_pdf("gropdf version 1.22.4")).sections[0].text
    assert "in a not-installed state." in " ".join(got.split())
    other = extract(Path("other.pdf"), _two_font_pdf("LibreOffice 7.4")).sections[0].text
    assert "anot-installed" in other  # what PDFium reads; other makers' files keep it untouched
