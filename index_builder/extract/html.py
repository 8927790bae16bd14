"""HTML pages and EPUB books (whose chapters are XHTML): headings become the section path."""
from __future__ import annotations

import io
from pathlib import Path

from ..chunking import Section, bounded_heading, long_heading_overflow
from .archive import check_zip

_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_DROP = {"script", "style", "noscript", "template", "svg", "head", "nav", "button", "select", "iframe"}
_BLOCKS = {"p", "div", "li", "ul", "ol", "pre", "blockquote", "table", "tr", "td", "th", "dd", "dt",
           "dl", "section", "article", "header", "footer", "aside", "main", "figure", "figcaption",
           "caption", "br", "hr", "body", "form", "fieldset", "address", "details", "summary"}
# landmarks that are the site's, not the page's: menus, search boxes, the page-wide header and
# footer ("Last updated on October 07, 2026" under every page of a manual would answer "when")
_SITE_ROLES = {"navigation", "search", "banner", "contentinfo"}


class _Sections:
    """Collects text blocks under the current heading path."""

    def __init__(self, headings: list[tuple[int, str]] | None = None):
        self.stack: list[tuple[int, str]] = headings or []
        self.sections: list[Section] = []
        self.blocks: list[str] = []
        self.inline: list[str] = []

    def end_block(self):
        text = " ".join("".join(self.inline).split())
        if text:
            self.blocks.append(text)
        self.inline.clear()

    def heading(self, level: int, text: str):
        self.end_block()
        if self.blocks:
            self.sections.append(Section(" > ".join(h for _, h in self.stack), "\n\n".join(self.blocks)))
            self.blocks = []
        self.stack = [(lvl, h) for lvl, h in self.stack if lvl < level] + [(level, bounded_heading(text))]
        if overflow := long_heading_overflow(text):  # too long to be a heading: also body text
            self.blocks.append(overflow)

    def close(self) -> list[Section]:
        self.heading(0, "")
        return self.sections


def _walk(node, out: _Sections, title_h1: list[str]):
    from bs4 import Comment, NavigableString, Tag

    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            out.inline.append(str(child))
        elif isinstance(child, Tag):
            name = (child.name or "").lower()
            if name in _DROP or str(child.get("role") or "").lower() in _SITE_ROLES:
                continue
            if name in _HEADINGS:
                text = " ".join(child.get_text(" ").split())
                if text:
                    if name == "h1" and not title_h1:
                        title_h1.append(text)
                    out.heading(_HEADINGS[name], text)
            elif name in _BLOCKS:
                out.end_block()
                _walk(child, out, title_h1)
                out.end_block()
            else:
                _walk(child, out, title_h1)


def _main_content(soup) -> list:
    """The page's main content where it marks it (<main>, role="main": documentation generators
    and most sites do), else its whole body: sidebars and footers outside it are the site's."""
    marked = soup.find_all(lambda tag: tag.name == "main" or str(tag.get("role") or "").lower() == "main")
    outermost = [tag for tag in marked if not any(parent in marked for parent in tag.parents)]
    return outermost or [soup.body or soup]


def html_sections(markup: bytes | str, headings=None) -> tuple[str, list[Section], _Sections]:
    """(title, sections) of one HTML document; <title> or else the first <h1> is the title."""
    import warnings

    from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        # bs4 warns on stderr, in ten lines, about XML-looking documents and text resembling a
        # URL or a file name; either is read as well as it can be, and the user can do nothing
        for noise in (XMLParsedAsHTMLWarning, MarkupResemblesLocatorWarning):
            warnings.simplefilter("ignore", noise)
        soup = BeautifulSoup(markup, "lxml")
    title_tag = soup.find("title")
    title = " ".join(title_tag.get_text(" ").split()) if title_tag else ""
    out = _Sections(list(headings or []))
    first_h1: list[str] = []
    for part in _main_content(soup):
        _walk(part, out, first_h1)
    sections = out.close()
    return title or (first_h1[0] if first_h1 else ""), sections, out


def html_file(path: Path, data: bytes):
    """Decoded as any text file is (binary junk named .html is refused as it is named .txt,
    and Latin-1 is not guessed as another code page), then parsed."""
    from . import Extracted
    from .text import decode

    title, sections, _ = html_sections(decode(data))
    return Extracted(title, sections)


def epub(path: Path, data: bytes):
    """Chapters in reading (spine) order; the book title from its metadata."""
    import ebooklib
    from ebooklib import epub as epublib

    from . import Extracted

    check_zip(data, "EPUB")
    book = epublib.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    titles = book.get_metadata("DC", "title")
    title = titles[0][0] if titles else ""
    sections: list[Section] = []
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        _, chapter, _ = html_sections(item.get_content())
        sections.extend(chapter)
    return Extracted(title, sections)
