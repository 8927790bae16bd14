"""Small valid PDF, DOCX, ODT and EPUB files made in memory, for the indexing tests."""
from __future__ import annotations

import io


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
