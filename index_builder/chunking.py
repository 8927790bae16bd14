"""Split a document's text into ~100-word passages that keep their heading context."""
from __future__ import annotations

import re
from dataclasses import dataclass

TARGET_WORDS = 100
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass
class Section:
    """A run of text under one heading path (e.g. "Install > Linux"), optionally on a PDF page."""

    heading: str
    text: str
    page: int | None = None


@dataclass
class Chunk:
    text: str
    section: str = ""
    page: int | None = None
    id: str | None = None  # kept from a passage file; otherwise derived from document and ordinal


def markdown_sections(text: str) -> tuple[str, list[Section]]:
    """Sections by Markdown ATX headings; the first level-1 heading (if any) is the title."""
    title = ""
    stack: list[tuple[int, str]] = []
    sections: list[Section] = []
    lines: list[str] = []

    def flush():
        body = "\n".join(lines).strip()
        if body:
            sections.append(Section(" > ".join(h for _, h in stack), body))
        lines.clear()

    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        match = None if in_code else _MD_HEADING.match(line)
        if match:
            flush()
            level, heading = len(match.group(1)), match.group(2).strip()
            if level == 1 and not title:
                title = heading
                stack = []
                continue
            stack = [(lvl, h) for lvl, h in stack if lvl < level] + [(level, heading)]
        else:
            lines.append(line)
    flush()
    return title, sections


def chunk_sections(sections: list[Section], target_words: int = TARGET_WORDS) -> list[Chunk]:
    """Greedy packing of paragraphs into ~target_words passages; never crosses a section."""
    chunks: list[Chunk] = []
    for section in sections:
        words_so_far: list[str] = []
        for unit in _units(section.text, target_words):
            unit_words = unit.split()
            if words_so_far and len(words_so_far) + len(unit_words) > target_words * 1.3:
                chunks.append(Chunk(" ".join(words_so_far), section.heading, section.page))
                words_so_far = []
            words_so_far.extend(unit_words)
            if len(words_so_far) >= target_words:
                chunks.append(Chunk(" ".join(words_so_far), section.heading, section.page))
                words_so_far = []
        if words_so_far:
            # A short tail joins the previous passage of the same section instead of standing alone.
            prev = chunks[-1] if chunks else None
            if (prev and prev.section == section.heading and prev.page == section.page
                    and len(words_so_far) < target_words // 4):
                prev.text += " " + " ".join(words_so_far)
            else:
                chunks.append(Chunk(" ".join(words_so_far), section.heading, section.page))
    return chunks


def _units(text: str, target_words: int):
    """Paragraphs, with over-long paragraphs cut at sentence ends (or hard at 1.5x target)."""
    for paragraph in re.split(r"\n\s*\n", text):
        words = paragraph.split()
        if not words:
            continue
        if len(words) <= target_words:
            yield " ".join(words)
            continue
        for sentence in _SENTENCE_END.split(" ".join(words)):
            sentence_words = sentence.split()
            limit = int(target_words * 1.5)
            for start in range(0, len(sentence_words), limit):
                yield " ".join(sentence_words[start:start + limit])
