"""PDF text per page with pypdfium2 (PDFium): many times faster than pypdf on the same files,
with the same words (and fewer words split than pypdf or pdfminer.six on groff's PDFs; the word
breaks PDFium loses in those: pdf_groff.py). Each page is its own section so passages keep
their page number for citations."""
from __future__ import annotations

import re
from pathlib import Path

from ..chunking import Section
from .pdf_groff import made_by_groff, spaced_text
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
        metadata = doc.get_metadata_dict()
        title = (metadata.get("Title") or "").strip()
        read = spaced_text if made_by_groff(metadata) else (lambda textpage: textpage.get_text_range())
        sections = []
        for number in range(len(doc)):
            page = doc[number]
            textpage = page.get_textpage()
            try:
                sections.append(Section("", page_text(read(textpage)), page=number + 1))
            finally:
                textpage.close()
                page.close()
    finally:
        doc.close()
    if not any(s.text.strip() for s in sections):
        raise Unreadable("PDF has no text layer (scanned pages need OCR)")
    return Extracted(title, sections)
