"""Plain text (any encoding), Markdown and reStructuredText."""
from __future__ import annotations

from pathlib import Path

from ..chunking import Section, markdown_sections

_SNIFF_BYTES = 64 * 1024


def decode(data: bytes) -> str:
    """UTF-8 when it is, else the encoding charset-normalizer finds; binary data is refused.

    NUL bytes mark binary data (as for git and grep) even when the bytes decode as UTF-8: a
    zero-filled file or binary records would otherwise be indexed as "text". Only UTF-16/32
    text, recognised by its byte-order mark, holds NULs."""
    from . import Unreadable

    if data.startswith((b"\xef\xbb\xbf",)):
        return data[3:].decode("utf-8", errors="replace")
    sample = data[:_SNIFF_BYTES]
    has_bom = sample.startswith((b"\xff\xfe", b"\xfe\xff"))
    if b"\x00" in sample and not has_bom:
        raise Unreadable("binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(sample).best()
    if best is None:
        raise Unreadable("binary file (no text encoding detected)")
    return data.decode(best.encoding, errors="replace")


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
