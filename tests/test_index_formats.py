"""Every supported format is extracted with its title, headings and (for PDF) page numbers;
damaged and binary files become one reason each."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from index_builder.extract import Unreadable, extract


def make_pdf(pages: list[str], title: str = "") -> bytes:
    """A small valid PDF with one line of Helvetica text per page (no PDF writer needed)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", None, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for text in pages:
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream.decode('latin-1')}\nendstream")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {len(objects)} 0 R "
                       "/Resources << /Font << /F1 3 0 R >> >> >>")
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    info = None
    if title:
        objects.append(f"<< /Title ({title}) >>")
        info = len(objects)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1"))
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R" + (f" /Info {info} 0 R" if info else "") + " >>"
    out.write(f"trailer\n{trailer}\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def make_docx(title: str, sections: dict[str, str]) -> bytes:
    import docx

    document = docx.Document()
    document.add_heading(title, level=0)
    for heading, text in sections.items():
        document.add_heading(heading, level=1)
        document.add_paragraph(text)
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "cell one", "cell two"
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def make_odt(sections: dict[str, str]) -> bytes:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    for heading, text in sections.items():
        document.text.addElement(H(outlinelevel=1, text=heading))
        document.text.addElement(P(text=text))
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()


def make_epub(title: str, chapters: dict[str, str]) -> bytes:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("test-book")
    book.set_title(title)
    book.set_language("en")
    items = []
    for number, (heading, text) in enumerate(chapters.items()):
        chapter = epub.EpubHtml(title=heading, file_name=f"c{number}.xhtml", lang="en")
        chapter.content = f"<html><body><h1>{heading}</h1><p>{text}</p></body></html>"
        book.add_item(chapter)
        items.append(chapter)
    book.toc = items
    book.spine = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    buffer = io.BytesIO()
    epub.write_epub(buffer, book)
    return buffer.getvalue()


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
