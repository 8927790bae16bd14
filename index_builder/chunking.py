"""Split a document's text into ~100-word passages that keep their heading context.

Every passage has a hard size bound whatever the text: at most ~150 words, and at most
MAX_PASSAGE_WEIGHT in `text_weight` (characters, a CJK character counting 3), so text without
spaces (Chinese, base64, a minified file) is cut by characters too. Section headings are
bounded to MAX_HEADING_CHARS. Chunks are produced lazily, so a large document is never held as
passages all at once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

TARGET_WORDS = 100
# 1,000 characters is ~130-150 words of English (the word bound takes effect first there) and
# ~250-450 tokens of base64 or code; a CJK character is ~1 token for the embedder (MiniLM sees 256)
# and 1-3 for an English-centric reader, so it counts 3: ~333 per passage, about the content of
# 150 English words. Ten such passages fit the reader's default 4,096-token context.
MAX_PASSAGE_WEIGHT = 1000
MAX_HEADING_CHARS = 200
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# CJK ideographs, kana, hangul, fullwidth forms: dense scripts written without spaces.
_WIDE = re.compile("[\u1100-\u11ff\u2e80-\u303f\u3040-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f"
                   "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff]")
_SOFT_CUT = re.compile(r"[\s。！？；，、.!?;,]")  # where a cut by characters prefers to fall


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


def text_weight(text: str) -> int:
    """Size of a passage for the bound: its characters, a wide (CJK) character counting 3."""
    return len(text) + 2 * len(_WIDE.findall(text))


def bounded_heading(text: str, limit: int = MAX_HEADING_CHARS) -> str:
    """A heading or title cut to `limit` characters (with an ellipsis) when longer."""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def long_heading_overflow(text: str) -> str | None:
    """The full text of a heading too long to be one: extractors keep it as body text, so a
    160 KB "heading" is indexed as passages instead of riding along with every passage."""
    return text if len(text) > MAX_HEADING_CHARS else None


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
            overflow = long_heading_overflow(heading)
            heading = bounded_heading(heading)
            if level == 1 and not title:
                title = heading
                stack = []
            else:
                stack = [(lvl, h) for lvl, h in stack if lvl < level] + [(level, heading)]
            if overflow:
                lines.append(overflow)
        else:
            lines.append(line)
    flush()
    return title, sections


def chunk_sections(sections: Iterable[Section], target_words: int = TARGET_WORDS,
                   max_weight: int = MAX_PASSAGE_WEIGHT) -> list[Chunk]:
    return list(iter_chunks(sections, target_words, max_weight))


def iter_chunks(sections: Iterable[Section], target_words: int = TARGET_WORDS,
                max_weight: int = MAX_PASSAGE_WEIGHT) -> Iterator[Chunk]:
    """Greedy packing of paragraphs into ~target_words passages; never crosses a section; no
    passage over 1.5 x target_words words or over max_weight."""
    held: Chunk | None = None  # the last passage, held back: a short tail may still join it
    for section in sections:
        heading = bounded_heading(section.heading)
        words: list[str] = []
        weight = -1  # of " ".join(words)

        def cut() -> Chunk:
            nonlocal words, weight
            chunk = Chunk(" ".join(words), heading, section.page)
            words, weight = [], -1
            return chunk

        for unit in _units(section.text, target_words, max_weight):
            unit_words, unit_weight = unit.split(), text_weight(unit)
            if words and (len(words) + len(unit_words) > target_words * 1.3
                          or weight + 1 + unit_weight > max_weight):
                if held:
                    yield held
                held = cut()
            words.extend(unit_words)
            weight += 1 + unit_weight
            if len(words) >= target_words or weight >= max_weight * 0.9:
                if held:
                    yield held
                held = cut()
        if words:
            # A short tail joins the previous passage of the same section instead of standing alone.
            if (held and held.section == heading and held.page == section.page
                    and len(words) < target_words // 4
                    and text_weight(held.text) + 1 + weight <= max_weight):
                held.text += " " + " ".join(words)
            else:
                if held:
                    yield held
                held = cut()
    if held:
        yield held


def _paragraphs(text: str) -> Iterator[str]:
    """Blank-line separated paragraphs, one at a time (re.split would copy a 50 MB text at once)."""
    start = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        yield text[start:match.start()]
        start = match.end()
    yield text[start:]


def _units(text: str, target_words: int, max_weight: int) -> Iterator[str]:
    """Paragraphs, with over-long paragraphs cut at sentence ends (or hard at 1.5x target), and
    any piece still over max_weight cut by characters."""
    for paragraph in _paragraphs(text):
        words = paragraph.split()
        if not words:
            continue
        if len(words) <= target_words:
            yield from cut_by_weight(" ".join(words), max_weight)
            continue
        for sentence in _SENTENCE_END.split(" ".join(words)):
            sentence_words = sentence.split()
            limit = int(target_words * 1.5)
            for start in range(0, len(sentence_words), limit):
                yield from cut_by_weight(" ".join(sentence_words[start:start + limit]), max_weight)


def cut_by_weight(text: str, max_weight: int) -> Iterator[str]:
    """`text` in pieces of at most max_weight, cut at a space or punctuation in the second half
    of a piece when there is one, else exactly at the bound."""
    while text_weight(text) > max_weight:
        end = max_weight  # characters; fewer when wide characters weigh more
        while end > 1 and text_weight(text[:end]) > max_weight:
            end = max(1, min(end - 1, end * max_weight // text_weight(text[:end])))
        soft = [m.end() for m in _SOFT_CUT.finditer(text, end // 2, end)]
        end = soft[-1] if soft else end
        piece = text[:end].strip()
        if piece:
            yield piece
        text = text[end:].lstrip()
    if text:
        yield text
