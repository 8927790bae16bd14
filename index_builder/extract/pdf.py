"""PDF text per page with pypdfium2 (PDFium): many times faster than pypdf on the same files,
with the same words. Each page is its own section so passages keep their page number for
citations."""
from __future__ import annotations

import re
from pathlib import Path

from ..chunking import Section
from .text import plain_hyphens

_HYPHEN_BREAK = re.compile(r"[\ufffe\u00ad-]\n(?=[a-z])")  # "man-\nagement" -> "management"


def page_text(raw: str) -> str:
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    text = _HYPHEN_BREAK.sub("", text)
    return plain_hyphens(text.replace("\ufffe", "").replace("\x00", ""))  # "−i" of groff: "-i"


def pdf(path: Path, data: bytes):
    import pypdfium2 as pdfium

    from . import Extracted, Unreadable

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        why = str(exc).replace("Failed to load document", "").strip(" ().") or "damaged file"
        raise Unreadable(f"cannot read PDF: {why}") from None
    try:
        title = (doc.get_metadata_dict().get("Title") or "").strip()
        sections = []
        for number in range(len(doc)):
            page = doc[number]
            textpage = page.get_textpage()
            try:
                sections.append(Section("", page_text(textpage.get_text_range()), page=number + 1))
            finally:
                textpage.close()
                page.close()
    finally:
        doc.close()
    if not any(s.text.strip() for s in sections):
        raise Unreadable("PDF has no text layer (scanned pages need OCR)")
    return Extracted(title, sections)
