"""The folder's conversions: a man page to plain text or PDF, Python's reST sources to Markdown,
and text to DOCX (python-docx). Each writes bytes from a manual on the machine, nothing invented."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

MAN_ENV = {**os.environ, "MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MAN_KEEP_FORMATTING": "",
           "MANPAGER": "cat", "PAGER": "cat",
           "MANROFFOPT": "-rHY=0 -dAD=l"}  # no hyphenation, ragged right: words stay whole
_SKIPPED = ("index", "module", "moduleauthor", "sectionauthor", "highlight", "testsetup", "include",
            "currentmodule", "toctree", "testcleanup", "only", "raw")
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?\.?([^`<]*?)(?:\s*<[^>]*>)?`")
_HEADING_CHARS = "=-~^\"'*+#"


def _run(command: list[str], stdin: bytes | None = None) -> bytes:
    done = subprocess.run(command, input=stdin, capture_output=True, env=MAN_ENV, check=False)
    if done.returncode != 0 or not done.stdout:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout


def man_text(page: str) -> str:
    """The man page as a terminal shows it, without bold and underline (col -bx)."""
    formatted = _run(["man", "-P", "cat", page])
    return _run(["col", "-bx"], formatted).decode("utf-8", errors="replace")


def man_pdf(page: str) -> bytes:
    """The man page typeset by groff (PostScript) and turned into PDF by ghostscript."""
    postscript = _run(["man", "-Tps", page])
    return _run(["ps2pdf", "-dQUIET", "-", "-"], postscript)


def rst_markdown(rst: str) -> str:
    """Python's reST source as Markdown: headings, code blocks, notes and API entries; index and
    module directives dropped; roles kept as their text in backquotes."""
    out: list[str] = []
    levels: list[str] = []
    lines = rst.splitlines()
    i, code_indent, skip_indent = 0, None, None
    while i < len(lines):
        line = lines[i]
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:  # inside a dropped directive's body
            if line.strip() and indent <= skip_indent:
                skip_indent = None
            else:
                i += 1
                continue
        if code_indent is not None:  # inside a literal block
            if line.strip() and indent <= code_indent:
                out.append("```")
                code_indent = None
            else:
                out.append(line[code_indent + 3:] if line.strip() else "")
                i += 1
                continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and nxt and len(set(nxt.strip())) == 1 and nxt.strip()[0] in _HEADING_CHARS \
                and len(nxt.strip()) >= len(line.strip()) and indent == 0:
            char = nxt.strip()[0]
            if char not in levels:
                levels.append(char)
            out += ["#" * min(6, levels.index(char) + 1) + " " + _inline(line.strip()), ""]
            i += 2
            continue
        if len(line.strip()) > 3 and len(set(line.strip())) == 1 and line.strip()[0] in _HEADING_CHARS:
            i += 1  # a transition line, or a heading's overline
            continue
        directive = re.match(r"\s*\.\. ([a-z:-]+)::\s*(.*)", line)
        if directive:
            name, arg = directive.group(1), directive.group(2)
            if name in _SKIPPED or name.startswith("index"):
                skip_indent = indent
            elif name in ("function", "method", "class", "data", "exception", "attribute", "decorator",
                          "classmethod", "staticmethod"):
                out += [f"### `{arg}`", ""]
            elif name in ("note", "warning", "seealso", "versionadded", "versionchanged", "deprecated",
                          "topic", "tip", "important"):
                label = name.replace("version", "version ").replace("seealso", "see also").capitalize()
                out += [f"**{label}:** {_inline(arg)}".rstrip(), ""]
            elif name in ("code-block", "doctest", "sourcecode", "testcode", "code"):
                out.append("```" + ("python" if name != "code-block" else arg))
                code_indent = indent
                i += 1
                while i < len(lines) and lines[i].strip().startswith(":"):
                    i += 1
                continue
            i += 1
            continue
        if line.strip().startswith(".. _") or line.strip() == "..":
            i += 1
            continue
        text = _inline(line.strip())
        if line.rstrip().endswith("::"):
            text = _inline(line.strip()[:-1]) if line.strip() != "::" else ""
            if text:
                out.append(text)
            out.append("```")
            code_indent = indent
            i += 1
            continue
        out.append(text)
        i += 1
    if code_indent is not None:
        out.append("```")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def _inline(text: str) -> str:
    text = _ROLE.sub(lambda m: f"`{m.group(1).strip()}`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return re.sub(r"`([^`<]+?) <[^>]+>`_+", r"\1", text)


def docx_bytes(title: str, blocks: list[tuple[str, str]]) -> bytes:
    """A DOCX of (kind, text) blocks: kind 'h1'/'h2' a heading, 'code' a monospaced paragraph,
    'p' a paragraph. Core properties fixed so the file's text depends on its source alone."""
    import datetime
    import io

    import docx

    document = docx.Document()
    document.core_properties.title = title
    document.core_properties.author = ""
    fixed = datetime.datetime(2024, 1, 1)
    document.core_properties.created = document.core_properties.modified = fixed
    document.add_heading(title, 0)
    for kind, text in blocks:
        if kind in ("h1", "h2"):
            document.add_heading(text, 1 if kind == "h1" else 2)
        elif kind == "code":
            run = document.add_paragraph().add_run(text)
            run.font.name = "Courier New"
        else:
            document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def man_blocks(text: str) -> list[tuple[str, str]]:
    """A rendered man page as blocks: its section names (flush-left capitals) as headings, each
    indented paragraph joined into one line of text."""
    blocks: list[tuple[str, str]] = []
    lines = text.splitlines()[1:-1]  # the running header and footer lines
    para: list[str] = []

    def flush():
        if para:
            blocks.append(("p", " ".join(para)))
            para.clear()

    for line in lines:
        if line.strip() and not line.startswith(" "):
            flush()
            blocks.append(("h1", line.strip().capitalize()))
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
    flush()
    return blocks


def markdown_blocks(markdown: str) -> list[tuple[str, str]]:
    """Markdown (from rst_markdown) as DOCX blocks."""
    blocks: list[tuple[str, str]] = []
    para: list[str] = []
    code: list[str] | None = None
    for line in markdown.splitlines():
        if code is not None:
            if line.startswith("```"):
                blocks.append(("code", "\n".join(code)))
                code = None
            else:
                code.append(line)
            continue
        if line.startswith("```"):
            if para:
                blocks.append(("p", " ".join(para)))
                para = []
            code = []
        elif line.startswith("#"):
            if para:
                blocks.append(("p", " ".join(para)))
                para = []
            level = len(line) - len(line.lstrip("#"))
            blocks.append(("h1" if level <= 2 else "h2", line.lstrip("#").strip().strip("`")))
        elif not line.strip():
            if para:
                blocks.append(("p", " ".join(para)))
                para = []
        else:
            para.append(line.strip())
    if para:
        blocks.append(("p", " ".join(para)))
    return blocks


def write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
