"""HTML pages and EPUB books (whose chapters are XHTML): headings become the section path; on a page
without headings inside, its lead-ins, terms and captions do (html_parts.py)."""
from __future__ import annotations

import io
from pathlib import Path

from ..chunking import Section, bounded_heading, long_heading_overflow
from .archive import check_zip
from .html_parts import CONTAINERS, PART_LEVEL, SHORT_PARTS_WORDS, inner_headings, part_name

_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_DROP = {"script", "style", "noscript", "template", "svg", "head", "nav", "button", "select", "iframe"}
_BLOCKS = {"p", "div", "li", "ul", "ol", "pre", "blockquote", "table", "tr", "td", "th", "dd", "dt",
           "dl", "section", "article", "header", "footer", "aside", "main", "figure", "figcaption",
           "caption", "br", "hr", "body", "form", "fieldset", "address", "details", "summary"}
# landmarks that are the site's, not the page's: menus, search boxes, the page-wide header and
# footer ("Last updated on October 07, 2026" under every page of a manual would answer "when")
_SITE_ROLES = {"navigation", "search", "banner", "contentinfo"}


class _Sections:
    """Collects text blocks under the current heading path (and, on a page without headings
    inside, the part a list item, term or caption starts: html_parts.py)."""

    def __init__(self, headings: list[tuple[int, str]] | None = None):
        self.stack: list[tuple[int, str]] = headings or []
        self.sections: list[Section] = []
        self.blocks: list[str] = []
        self.inline: list[str] = []
        self.containers = 0  # lists, term lists and tables open around the text, on such a page
        self.short_part_under: list[str] | None = None  # the last section: a short part, under these

    def end_block(self):
        text = " ".join("".join(self.inline).split())
        if text:
            self.blocks.append(text)
        self.inline.clear()

    def _flush(self):
        self.end_block()
        if not self.blocks:
            return
        text, self.blocks = "\n\n".join(self.blocks), []
        path = [h for _, h in self.stack]
        in_part = bool(self.stack) and self.stack[-1][0] >= PART_LEVEL
        last = self.sections[-1] if self.sections else None
        if (in_part and last is not None and self.short_part_under == path[:-1]
                and len(last.text.split()) + len(text.split()) <= SHORT_PARTS_WORDS):
            last.heading += f", {path[-1]}"  # "Page > Alpha, Beta": one passage, both named
            last.text += "\n\n" + text
        else:
            self.sections.append(Section(" > ".join(path), text))
            last = self.sections[-1]
        short = in_part and len(last.text.split()) < SHORT_PARTS_WORDS
        self.short_part_under = path[:-1] if short else None

    def heading(self, level: int, text: str):
        self._flush()
        self.stack = [(lvl, h) for lvl, h in self.stack if lvl < level] + [(level, bounded_heading(text))]
        if overflow := long_heading_overflow(text):  # too long to be a heading: also body text
            self.blocks.append(overflow)

    def part(self, name: str):
        """A list item's lead-in, a term or a caption names the text from here on (one level below
        the part whose list holds it)."""
        self.heading(PART_LEVEL + max(self.containers - 1, 0), name)

    def open_container(self):
        self.containers += 1

    def close_container(self):
        """The list (or table) ends: the text after it is under the heading above it again."""
        self._flush()
        self.containers -= 1
        self.stack = [(lvl, h) for lvl, h in self.stack if lvl < PART_LEVEL + self.containers]

    def close(self) -> list[Section]:
        self.heading(0, "")
        return self.sections


def _walk(node, out: _Sections, title_h1: list[str], parts: bool = False):
    """`parts`: the page has no headings inside, so lead-ins, terms and captions name its parts."""
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
            elif parts and name in CONTAINERS:
                out.end_block()
                out.open_container()
                _walk(child, out, title_h1, parts)
                out.close_container()
            elif name in _BLOCKS:
                out.end_block()
                named = part_name(child, name) if parts else None
                if named:
                    out.part(named)  # its words stay in the text too: "--force: overwrite ..."
                _walk(child, out, title_h1, parts)
                out.end_block()
            else:
                _walk(child, out, title_h1, parts)


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
    main = _main_content(soup)
    parts = inner_headings(main) <= 1  # at most the page's own name: its structure names its parts
    for part in main:
        _walk(part, out, first_h1, parts)
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
