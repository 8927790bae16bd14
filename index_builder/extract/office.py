"""Word processor files: DOCX (python-docx) and ODT (odfpy); heading styles give sections."""
from __future__ import annotations

import io
import re
from pathlib import Path

from ..chunking import Section, bounded_heading, long_heading_overflow
from .archive import check_zip

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)


class _Builder:
    def __init__(self):
        self.stack: list[tuple[int, str]] = []
        self.sections: list[Section] = []
        self.paragraphs: list[str] = []
        self.title = ""

    def heading(self, level: int, text: str):
        self.flush()
        self.stack = [(lvl, h) for lvl, h in self.stack if lvl < level] + [(level, bounded_heading(text))]
        if overflow := long_heading_overflow(text):  # too long to be a heading: also body text
            self.paragraph(overflow)

    def paragraph(self, text: str):
        if text.strip():
            self.paragraphs.append(text.strip())

    def flush(self):
        if self.paragraphs:
            self.sections.append(Section(" > ".join(h for _, h in self.stack), "\n\n".join(self.paragraphs)))
            self.paragraphs = []


def docx(path: Path, data: bytes):
    import docx as python_docx
    from docx.table import Table

    from . import Extracted

    check_zip(data, "DOCX")
    document = python_docx.Document(io.BytesIO(data))
    out = _Builder()
    out.title = document.core_properties.title or ""
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                cells = []
                for cell in row.cells:
                    if cell.text.strip() and cell.text.strip() not in cells:  # merged cells repeat
                        cells.append(cell.text.strip())
                out.paragraph(" | ".join(cells))
            continue
        style = (block.style.name if block.style is not None else "") or ""
        text = block.text
        if style.lower() == "title" and text.strip():
            out.title = out.title or text.strip()
            if long_heading_overflow(text.strip()):  # bounded as a title; its text stays indexed
                out.paragraph(text)
            continue
        match = _HEADING_STYLE.match(style)
        if match and text.strip():
            out.heading(int(match.group(1)), text.strip())
        else:
            out.paragraph(text)
    out.flush()
    return Extracted(out.title, out.sections)


def odt(path: Path, data: bytes):
    from odf import teletype
    from odf.opendocument import load
    from odf.namespaces import TEXTNS

    from . import Extracted

    check_zip(data, "ODT")
    document = load(io.BytesIO(data))
    out = _Builder()
    titles = document.meta.getElementsByType(__import__("odf.dc", fromlist=["Title"]).Title)
    out.title = str(titles[0]) if titles else ""

    def visit(element):
        for child in element.childNodes:
            if child.nodeType != child.ELEMENT_NODE:
                continue
            if child.qname == (TEXTNS, "h"):
                level = int(child.getAttrNS(TEXTNS, "outline-level") or 1)
                out.heading(level, teletype.extractText(child).strip())
            elif child.qname == (TEXTNS, "p"):
                out.paragraph(teletype.extractText(child))
            else:
                visit(child)

    visit(document.text)
    out.flush()
    return Extracted(out.title, out.sections)
