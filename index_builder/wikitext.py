"""Wikitext -> plain text sections with mwparserfromhell.

Templates, references, tables, files, categories, comments and math are dropped; links become
their text; headings become the section path; reference-like sections (References, External
links, ...) are left out because they are lists of citations, not prose.
"""
from __future__ import annotations

import re

import mwparserfromhell
from mwparserfromhell import nodes

from .chunking import Section

_DROP_TAGS = {"ref", "references", "table", "math", "gallery", "timeline", "imagemap", "score", "chem",
              "syntaxhighlight", "source", "graph", "mapframe", "maplink", "templatedata", "noinclude",
              "includeonly", "onlyinclude", "nowiki", "hiero", "ce", "sup"}
_LINE_TAGS = {"br", "li", "dt", "dd", "hr", "p"}
_NON_ARTICLE_LINKS = re.compile(r"^\s*:?\s*(file|image|media|category|datei|bild|fichier|archivo|"
                                r"файл|категория|категорія|[a-z]{2,3}(-[a-z]+)?)\s*:", re.IGNORECASE)
_SKIP_SECTIONS = {"references", "external links", "see also", "further reading", "notes", "bibliography",
                  "sources", "citations", "footnotes", "notes and references", "references and notes",
                  "works cited", "literature", "external sources"}
_DISAMBIGUATION = re.compile(r"\{\{\s*(disambig\w*|dab|disamb|hndis|geodis|numberdis|schooldis|"
                             r"hospitaldis|mathdab|roaddis|shipindex|set index article|surname|given name|"
                             r"[^{}|]*disambiguation[^{}|]*|пояснение|многозначность)\s*[|}]", re.IGNORECASE)
_REDIRECT = re.compile(r"^\s*#\s*(redirect|пренасочване|перенаправление|weiterleitung|redirection|"
                       r"chuyển|đổi)\b", re.IGNORECASE)
# Whatever the parser could not make sense of (unbalanced markup) is removed as a last step.
_LEFTOVER = re.compile(r"\{\{|\}\}|\[\[|\]\]|\{\||\|\}|<ref[^>]*>|</ref>|__[A-Z]+__|'{2,}|<[^>\s]+[^>]*>")
_TABLE_LINE = re.compile(r"^\s*(\{\||\|\}|\|-|\||!)")


def is_redirect(text: str) -> bool:
    return bool(_REDIRECT.match(text))


def is_disambiguation(title: str, text: str) -> bool:
    return "(disambiguation)" in title.lower() or bool(_DISAMBIGUATION.search(text))


def _plain(code) -> str:
    out: list[str] = []
    for node in code.nodes:
        if isinstance(node, nodes.Text):
            out.append(str(node.value))
        elif isinstance(node, nodes.Wikilink):
            if _NON_ARTICLE_LINKS.match(str(node.title)):
                continue
            out.append(_plain(node.text) if node.text is not None else str(node.title).split("#")[0])
        elif isinstance(node, nodes.ExternalLink):
            if node.title is not None:
                out.append(_plain(node.title))
        elif isinstance(node, nodes.Tag):
            tag = str(node.tag).lower().strip()
            if tag in _DROP_TAGS or (node.wiki_markup and str(node.wiki_markup).startswith("{|")):
                continue
            if tag in _LINE_TAGS:
                out.append("\n")
            if node.contents is not None:
                out.append(_plain(node.contents))
        elif isinstance(node, nodes.HTMLEntity):
            out.append(node.normalize())
        elif isinstance(node, nodes.Heading):
            out.append("\n\n" + _plain(node.title).strip() + "\n\n")
        # Templates, comments, arguments: dropped.
    return "".join(out)


def clean(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if _TABLE_LINE.match(line):
            continue
        line = _LEFTOVER.sub("", line)
        line = re.sub(r"\(\s*[,;]?\s*\)", "", line)  # "( )" left where a template was
        line = re.sub(r"[ \t]+", " ", line).strip()
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def article_sections(wikitext: str) -> list[Section]:
    """Sections of an article, lead first, each with its heading path."""
    code = mwparserfromhell.parse(wikitext, skip_style_tags=True)
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    body: list = []
    skipping_level = 0  # inside a References-like section at this level

    def flush():
        if body and not skipping_level:
            text = clean(_plain(mwparserfromhell.wikicode.Wikicode(body)))
            if text:
                sections.append(Section(" > ".join(h for _, h in stack), text))
        body.clear()

    for node in code.nodes:
        if isinstance(node, nodes.Heading):
            flush()
            level = node.level
            heading = clean(_plain(node.title))
            if skipping_level and level <= skipping_level:
                skipping_level = 0
            if not skipping_level and heading.lower() in _SKIP_SECTIONS:
                skipping_level = level
            stack = [(lvl, h) for lvl, h in stack if lvl < level] + [(level, heading)]
        else:
            body.append(node)
    flush()
    return sections
