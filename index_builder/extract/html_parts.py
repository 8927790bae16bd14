"""The parts a web page marks without headings: a list item's bold lead-in ("**--force**: ..."),
a definition term (<dt>), a table's caption.

A reference page often has one heading (its name) and then a list whose items each start with a
bold name. Without headings inside, every passage of such a page was titled with the page's name
alone, so a citation could not say which part it came from. There, each of these parts names the
section of the text under it (html.py places it below the headings, as a level under <h6>).
"""
from __future__ import annotations

from ..chunking import MAX_HEADING_CHARS, TARGET_WORDS

PART_LEVEL = 7  # below <h6>: a part of a page that has no headings inside
CONTAINERS = {"ul", "ol", "dl", "table"}  # where parts start; when one ends, so do its parts
MAX_PART_CHARS = 80  # a longer bold lead-in is emphasis in a sentence, not a name
# consecutive short parts share a passage ("Page > Alpha, Beta"): a one-line item alone would be a
# passage of a few words, too little for the judge to rank or the reader to read
SHORT_PARTS_WORDS = TARGET_WORDS // 2
_BOLD = {"b", "strong"}
_WRAPPERS = {"p", "span", "a", "div"}  # a lead-in may sit inside these at the item's start


def inner_headings(parts) -> int:
    """How many headings with text the page's main content holds."""
    return sum(1 for part in parts for tag in part.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])
               if tag.get_text(strip=True))


def _first_child(node):
    """The first child that is not blank text or a comment; None when there is none."""
    from bs4 import Comment, NavigableString

    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString) and not child.strip():
            continue
        return child
    return None


def _text(tag) -> str:
    return " ".join(tag.get_text(" ").split())


def lead_in(item) -> str | None:
    """The bold words an item starts with, when more text follows them; else None."""
    from bs4 import Tag

    node = _first_child(item)
    while isinstance(node, Tag) and (node.name or "").lower() in _WRAPPERS:
        node = _first_child(node)
    if not isinstance(node, Tag) or (node.name or "").lower() not in _BOLD:
        return None
    name = _text(node).rstrip(":.;,-–— ").strip()
    if not name or len(name) > MAX_PART_CHARS or len(_text(item)) <= len(_text(node)) + 1:
        return None
    return name


def part_name(tag, name: str) -> str | None:
    """The name of the part `tag` starts (a lead-in, a term, a caption); None when it starts none."""
    if name == "li":
        return lead_in(tag)
    if name in ("dt", "caption"):  # a term may be a whole signature ("Function: int f (int x)")
        text = _text(tag).rstrip("¶:# ").strip()  # without a permalink's pilcrow
        return text if text and len(text) <= MAX_HEADING_CHARS else None
    return None
