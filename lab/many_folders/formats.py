"""The many-folders benchmark's conversions that lab/personal_docs/convert.py lacks: a man page as a
PDF typeset by groff alone (gropdf), text as an OpenDocument file (odfpy), a GNU info manual as one
Markdown file per chapter, and a Python "What's New" as one short text note per subsection. Each
writes the manual's own words; only headings are arranged."""
from __future__ import annotations

import gzip
import io
import re
import subprocess
from pathlib import Path

from lab.personal_docs.convert import MAN_ENV, rst_markdown

_INFO_UNDERLINE = {"*": "#", "=": "##", "-": "###", ".": "####"}
_INFO_SKIPPED = re.compile(r"^(Top|.*\bIndex|GNU Free Documentation License|Copying.*|Concept.*)$")


def man_pdf(page: str) -> bytes:
    """The man page typeset straight to PDF by groff (no ghostscript needed)."""
    done = subprocess.run(["man", "-Tpdf", page], capture_output=True, env=MAN_ENV, check=False)
    if done.returncode != 0 or not done.stdout.startswith(b"%PDF"):
        raise RuntimeError(f"man -Tpdf {page} failed: {done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout


def odt_bytes(title: str, blocks: list[tuple[str, str]]) -> bytes:
    """An ODT of (kind, text) blocks as convert.docx_bytes takes them ('h1'/'h2' headings, 'p' or
    'code' paragraphs). No dates are written, so the file depends on its text alone."""
    from odf.opendocument import OpenDocumentText
    from odf.style import Style, TextProperties
    from odf.text import H, P

    document = OpenDocumentText()
    document.meta.childNodes[:] = []  # odfpy writes the creation date and generator there
    for level in (1, 2):
        style = Style(name=f"Heading {level}", family="paragraph")
        style.addElement(TextProperties(fontweight="bold"))
        document.styles.addElement(style)
    document.text.addElement(H(outlinelevel=1, stylename="Heading 1", text=title))
    for kind, text in blocks:
        if kind in ("h1", "h2"):
            level = 1 if kind == "h1" else 2
            document.text.addElement(H(outlinelevel=level, stylename=f"Heading {level}", text=text))
        else:
            document.text.addElement(P(text=text))
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()


def info_nodes(path: Path) -> list[tuple[str, str, str]]:
    """(node name, its Up node, its text) for each node of an info file (.gz)."""
    raw = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
    nodes = []
    for chunk in raw.split("\x1f"):
        header, _, body = chunk.strip("\n").partition("\n")
        found = re.match(r"File: [^,]+,\s+Node: ([^,]+)(?:.*?Up: ([^,\n]+))?", header)
        if found and not header.startswith("Tag Table"):
            nodes.append((found.group(1).strip(), (found.group(2) or "").strip(), body))
    return nodes


def info_markdown(body: str) -> str:
    """One info node as Markdown: its title as a heading (the underline says the level), each
    ‘term’ line of a table as `term`, indented text as plain lines, its menu dropped."""
    lines = body.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and nxt.strip() and set(nxt.strip()) <= set(_INFO_UNDERLINE) and len(set(nxt.strip())) == 1 \
                and len(nxt.strip()) >= len(line.strip()) - 1:
            out += [f"{_INFO_UNDERLINE[nxt.strip()[0]]} {line.strip()}", ""]
            i += 2
            continue
        if line.startswith("* Menu:"):
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(("* ", "   "))):
                i += 1
            continue
        term = re.fullmatch(r"\s*‘(.+)’\s*|\s*'(\S.*)'\s*", line)  # older manuals quote in ASCII
        out.append(f"`{term.group(1) or term.group(2)}`" if term else (line[5:] if line.startswith("     ") else line))
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def info_chapters(path: Path) -> list[tuple[str, str]]:
    """(file name, Markdown) for each chapter of the manual: a node under Top with the nodes
    below it, in the manual's order; the index, licence and top nodes left out."""
    chapters: list[tuple[str, list[str]]] = []
    owner: dict[str, int] = {}
    for name, up, body in info_nodes(path):
        if _INFO_SKIPPED.match(name):
            continue
        if up == "Top" or up not in owner:
            owner[name] = len(chapters)
            chapters.append((name, [info_markdown(body)]))
        else:
            owner[name] = owner[up]
            chapters[owner[up]][1].append(info_markdown(body))
    return [(f"{number:02d}-{slug(name)}.md", "\n".join(parts)) for number, (name, parts) in enumerate(chapters, 1)]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "section"


def rst_sections(rst: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(the page's title, [(section, subsection, reST text)]) of a "What's New" page: each
    subsection ('-' underline) of each section ('=' underline); a section without any is one entry
    with subsection ""."""
    lines = rst.splitlines()
    title, section, sub, body = "", "", "", []
    out: list[tuple[str, str, str]] = []

    def flush():
        if (section or sub) and any(line.strip() for line in body):
            out.append((section, sub, "\n".join(body)))
        body.clear()

    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        under = nxt.strip()
        is_heading = line.strip() and under and len(set(under)) == 1 and len(under) >= len(line.strip()) \
            and not line.startswith(" ")
        prev = lines[i - 1].strip() if i else ""
        if not title and line.strip() and under[:1] == "*" and set(under) == set(prev) == {"*"}:
            title = line.strip()  # the page's title, between two lines of stars
        elif is_heading and under[0] == "=":
            flush()
            section, sub = line.strip(), ""
        elif is_heading and under[0] == "-":
            flush()
            sub = line.strip()
        elif set(line.strip()) <= set("*=-") and line.strip():
            continue  # an underline or overline
        else:
            body.append(line)
    flush()
    return title, out


def release_notes(path: Path) -> list[tuple[str, str]]:
    """(file name, text) of one short note per subsection of a "What's New" page, each opening with
    the page's title and its headings."""
    title, sections = rst_sections(path.read_text(encoding="utf-8"))
    notes = []
    for section, sub, body in sections:
        text = rst_markdown(body)
        text = re.sub(r"^#+ ", "", text, flags=re.M).replace("```python\n", "").replace("```\n", "")
        heading = _plain_roles(" / ".join(part for part in (section, sub) if part))
        name = f"{slug(section)}/{slug(sub)}.txt" if sub else f"{slug(section)}.txt"
        notes.append((name, f"{title}: {heading}\n\n{_plain_roles(text).strip()}\n"))
    return notes


def _plain_roles(text: str) -> str:
    """Backquotes off (rst_markdown has made roles plain words), as written notes are."""
    return text.replace("`", "")
