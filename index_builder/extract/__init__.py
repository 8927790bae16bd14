"""File -> (title, sections): one module per format family, chosen by file suffix.

Every failure becomes Unreadable(reason): the folder indexer lists the file as skipped with
that reason and goes on.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..chunking import Section, bounded_heading
from ..names import safe_name


class Unreadable(Exception):
    """The file cannot be turned into text; str(exc) is the reason shown to the user."""


@dataclass
class Extracted:
    title: str
    sections: list[Section]


def _extractors():
    from . import html, office, pdf, text

    return {
        ".txt": text.plain, ".text": text.plain,
        ".md": text.markdown, ".markdown": text.markdown,
        ".rst": text.restructured,
        ".html": html.html_file, ".htm": html.html_file, ".xhtml": html.html_file,
        ".pdf": pdf.pdf,
        ".docx": office.docx,
        ".odt": office.odt,
        ".epub": html.epub,
    }


_BY_SUFFIX: dict | None = None

# How each format is read now, by suffix (1 where never changed): raised when a format's extractor
# reads the same file differently (2: a web page's main content only, a PDF's minus signs as
# hyphens; 3: a page without headings inside sectioned by its lead-ins, terms and captions, a
# groff PDF's words apart at its changes of font), so that an index built before reads those
# files again rather than keeping the old text.
READ_AS = {".html": 3, ".htm": 3, ".xhtml": 3, ".epub": 3, ".pdf": 3}


def read_as(path: str | Path, versions: Mapping[str, int] | None = None) -> int:
    """How a file of this name is read: now (READ_AS), or by the versions a source recorded."""
    return (READ_AS if versions is None else versions).get(Path(path).suffix.lower(), 1)


def extract(path: Path, data: bytes) -> Extracted:
    """Title and sections of the file's text; raises Unreadable with the reason."""
    global _BY_SUFFIX
    if _BY_SUFFIX is None:
        _BY_SUFFIX = _extractors()
    if not data:
        raise Unreadable("empty file")
    from . import text

    extractor = _BY_SUFFIX.get(path.suffix.lower(), text.any_text)
    try:
        extracted = extractor(path, data)
    except Unreadable:
        raise
    except RecursionError:
        raise Unreadable("too deeply nested to read") from None
    except Exception as exc:  # libraries raise many kinds on damaged files; one reason line
        kind = path.suffix.lstrip(".").upper() or "file"
        detail = (str(exc).splitlines() or [type(exc).__name__])[0][:120]
        raise Unreadable(f"cannot read {kind}: {detail or type(exc).__name__}") from None
    extracted.sections = [s for s in extracted.sections if s.text.strip()]
    if not extracted.sections:
        raise Unreadable("no text found")
    title = " ".join(extracted.title.split()) or safe_name(path.stem).replace("_", " ")
    extracted.title = bounded_heading(title)
    return extracted
