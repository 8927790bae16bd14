"""Plain text (any encoding), Markdown and reStructuredText."""
from __future__ import annotations

from pathlib import Path

from ..chunking import Section, markdown_sections

_SNIFF_BYTES = 64 * 1024
# minus sign, hyphen, non-breaking hyphen: typeset forms of "-" (not the en and em dashes of prose)
_TYPESET_HYPHENS = str.maketrans({"\u2212": "-", "\u2010": "-", "\u2011": "-"})


def plain_hyphens(text: str) -> str:
    """Typeset hyphens as "-": a PDF made by groff (a man page) writes the option "-i" as "−i"
    (U+2212), where people, the reader and search write "-i"."""
    return text.translate(_TYPESET_HYPHENS)


def decode(data: bytes) -> str:
    """UTF-8 when it is, else the encoding charset-normalizer finds; binary data is refused.

    NUL bytes mark binary data (as for git and grep) even when the bytes decode as UTF-8: a
    zero-filled file or binary records would otherwise be indexed as "text". Only UTF-16/32
    text, recognised by its byte-order mark, holds NULs. A known binary signature (a PDF, an
    image, an archive renamed .txt or .html) and text that is mostly control characters are
    refused too (sniff.py)."""
    from . import Unreadable
    from .sniff import binary_kind, check_text

    if data.startswith((b"\xef\xbb\xbf",)):
        return check_text(data[3:].decode("utf-8", errors="replace"))
    sample = data[:_SNIFF_BYTES]
    has_bom = sample.startswith((b"\xff\xfe", b"\xfe\xff"))
    kind = binary_kind(sample)
    if kind:
        raise Unreadable(f"binary file ({kind})")
    if b"\x00" in sample and not has_bom:
        raise Unreadable("binary file")
    try:
        return check_text(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    encoding = best_encoding(from_bytes(sample))
    if encoding is None:
        raise Unreadable("binary file (no text encoding detected)")
    return check_text(data.decode(encoding, errors="replace"))


# When charset-normalizer finds several code pages equally plausible (short Western text:
# "Café crème" reads as well in cp1250, cp1252 and cp1257), the most used one wins: Windows-1252
# is what "Latin-1" means on the web (WHATWG), so "crème" does not become "crčme".
_PREFERRED = ("utf_8", "cp1252", "latin_1", "iso8859_15")
_TIE_CHAOS, _TIE_COHERENCE = 0.01, 0.05


def best_encoding(matches) -> str | None:
    """The encoding of charset-normalizer's matches to decode with (None: no text)."""
    matches = list(matches)
    if not matches:
        return None
    best = matches[0]
    tied = [m for m in matches if m.chaos <= best.chaos + _TIE_CHAOS and m.coherence >= best.coherence - _TIE_COHERENCE]
    for name in _PREFERRED:
        if any(m.encoding == name for m in tied):
            return name
    return best.encoding


def plain(path: Path, data: bytes):
    from . import Extracted

    return Extracted("", [Section("", decode(data))])


any_text = plain  # files of unknown type: indexed when their bytes are text in some encoding


def markdown(path: Path, data: bytes):
    from . import Extracted

    title, sections = markdown_sections(decode(data))
    return Extracted(title, sections)


def restructured(path: Path, data: bytes):
    """Sections from docutils' document tree: heading path per section, paragraphs as text."""
    from docutils import nodes
    from docutils.core import publish_doctree

    from . import Extracted

    overrides = {"report_level": 5, "halt_level": 5, "file_insertion_enabled": False,
                 "raw_enabled": False, "warning_stream": False, "input_encoding": "unicode"}
    tree = publish_doctree(decode(data), settings_overrides=overrides)
    title = tree.get("title", "")
    sections: list[Section] = []

    def visit(node, headings: list[str]):
        blocks: list[str] = []

        def flush():
            if blocks:
                sections.append(Section(" > ".join(h for h in headings if h), "\n\n".join(blocks)))
                blocks.clear()

        for child in node.children:
            if isinstance(child, nodes.section):
                flush()
                heading = child.next_node(nodes.title)
                visit(child, headings + [heading.astext() if heading else ""])
            elif isinstance(child, (nodes.title, nodes.comment, nodes.system_message, nodes.substitution_definition)):
                continue
            elif isinstance(child, nodes.Element):
                blocks.append(child.astext())
        flush()

    visit(tree, [])
    return Extracted(title, sections)
