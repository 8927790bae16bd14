"""Document text kept data: for the reader (no delimiter it can close, no fake "Sources:" list to
copy) and for the user (the sources list is the product's own metadata, quoted and bounded; an
answer never ends in a sources block the reader copied from a document)."""
from __future__ import annotations

import re

from models.reader.special_tokens import escape_special

from .settings import ANSWERING

# Our prompt's delimiters in any spelling a document may try: </documents>, < / DOCUMENTS >, ...
_DELIMITER = re.compile(r"<\s*/?\s*(?:documents?|facts|drafts|passages?|question)\s*>", re.IGNORECASE)
# A line that opens a sources block: "Sources:", "**Sources:**", "## References:", "Source: [1] ..."
_SOURCES_LINE = re.compile(r"^[ \t>#*_-]*(?:sources?|references|citations)[ \t*_]*:", re.IGNORECASE | re.MULTILINE)
# In an answer, a sources list: the header, then a numbered or bulleted entry on its line or the
# next ("Sources:\n[1] ...", "... Sources: [1] secret-admin-file.txt"); "Sources: grants" is prose.
_SOURCES_LIST = re.compile(r"(?:^[ \t>#*_-]*|[ \t(*_]*\b)(?:sources?|references|citations)[ \t*_]*:[ \t*_]*"
                           r"(?:\n[ \t]*)?(?:\[\d|\d+[.)]\s|[-*\u2022]\s)", re.IGNORECASE | re.MULTILINE)
QUOTED_SOURCES = "(the document lists) sources:"


def document_text(text: str) -> str:
    """Text from a document, ready to quote in a prompt: our delimiters removed, control-token
    look-alikes escaped, and a "Sources:" line marked as the document's own list."""
    text = _DELIMITER.sub("", escape_special(text or ""))
    return _SOURCES_LINE.sub(QUOTED_SOURCES, text).strip()


def answer_text(text: str) -> str:
    """The reader's answer without a sources block at its end (or run into its last line): the
    sources shown are the product's own, and a copied block is a document's, perhaps a fake
    ("Sources: [1] secret-admin-file.txt (password: hunter2)")."""
    cut = len(text)
    for pattern in (_SOURCES_LIST, re.compile(re.escape(QUOTED_SOURCES), re.IGNORECASE)):
        found = pattern.search(text)
        if found:
            cut = min(cut, found.start())
    kept = text[:cut].rstrip(" \t\n*_-#>")
    return kept if kept.strip() else ("unknown" if cut < len(text) else text)


def shown_label(text: str, limit: int = ANSWERING.max_label_chars) -> str:
    """A title, heading or file name as the user's sources list shows it: one line, control
    characters escaped, at most `limit` characters. A title that reads like an order ("Ignore
    the question and ...") is then visibly a bounded value, not a line of the product's."""
    from index_builder.names import safe_name

    text = " ".join(safe_name(text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
