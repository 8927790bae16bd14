"""Searching the index alone (`assistant search`, the MCP server's search tool, the server's
/v1/search): the hybrid search every question starts with, no reader and no judge loaded, each
passage with its file, page or section and a snippet around the words searched for.

The query's vector comes from the embedder's numpy encoder (models/query_encoder.py): a search
imports neither torch nor llama.cpp."""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass

from models.config import Settings
from models.errors import BadInputError

MAX_QUERY_CHARS = 400  # the numpy encoder's limit for one text; longer would load torch
MAX_K = 50
SNIPPET_CHARS = 240


@dataclass(frozen=True)
class Hit:
    """One passage found: where it is (file relative to its indexed folder, page or section)
    and what it says."""

    rank: int
    file: str  # the document's path inside its indexed folder (a Wikipedia title, a passage key)
    title: str
    page: int | None
    section: str
    snippet: str  # the passage around the first word searched for, at most SNIPPET_CHARS
    text: str  # the whole passage
    source: str  # the indexed folder or file, as recorded (an absolute path on this machine)
    folder: str  # the source's own name (its last path part): what a remote client is shown
    score: float
    passage_id: str

    @property
    def where(self) -> str:
        """`file, page N` or `file § section`: one line a person can find the text by."""
        place = self.file or self.title or self.passage_id
        if self.page:
            return f"{place}, page {self.page}"
        return f"{place} § {self.section}" if self.section else place

    def as_dict(self, local: bool = True) -> dict:
        """As `--json` and the tools show it; `local` False drops this machine's absolute path."""
        data = asdict(self) | {"where": self.where}
        if not local:
            data["source"] = self.folder
        return data


def check_query(query: str, k: int) -> str:
    """The query on one line, cut to MAX_QUERY_CHARS. One without a word (only punctuation or
    operators: `*`, `"`) is empty: full text finds nothing by it and vectors anything."""
    text = " ".join(str(query or "").split())
    if not re.search(r"\w", text):
        raise BadInputError("the search is empty; give some words to look for, e.g. assistant search \"leave days\"")
    if not 1 <= k <= MAX_K:
        raise BadInputError(f"k = {k} is out of range (1-{MAX_K})")
    return text[:MAX_QUERY_CHARS]


def search(settings: Settings, query: str, k: int = 5, collection: str | None = None,
           embedder_factory=None) -> list[Hit]:
    """The k best passages for `query` (vector and full-text search fused), within `collection`
    when given. NoIndex when there is no index; an unknown collection is one line naming those
    there are."""
    from index_builder.collections import check_known
    from index_builder.store import IndexStore
    from models import registry

    from ..retrieval.retriever import HybridRetriever

    text = check_query(query, k)
    store = IndexStore.open(settings.index_path)
    collection = collection if collection is not None else settings.collection
    sources = check_known(store.meta, collection) if collection is not None else None
    embedder = (embedder_factory or registry.get_embedder)(settings)
    passages = HybridRetriever(store, embedder, sources=sources).search(text, k)
    return [Hit(rank=n, file=p.path, title=p.title, page=p.page, section=p.section, snippet=snippet(p.text, text),
                text=p.text, source=p.source, folder=source_label(p.source), score=p.score, passage_id=p.id)
            for n, p in enumerate(passages, 1)]


def source_label(source: str) -> str:
    """A source's own name without the folders above it: `/home/ana/notes` -> `notes`."""
    return os.path.basename(source.rstrip("/\\")) or source


def snippet(text: str, query: str, width: int = SNIPPET_CHARS) -> str:
    """`width` characters of the passage around the first of the query's longer words it holds
    (its opening when it holds none), cut at word ends and marked with … where cut."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    words = sorted({w for w in re.findall(r"\w+", query.lower()) if len(w) > 3}, key=len, reverse=True)
    lower = flat.lower()
    at = min((i for i in (lower.find(w) for w in words) if i >= 0), default=0)
    start = max(0, at - width // 3)
    start = flat.rfind(" ", 0, start) + 1 if start else 0
    end = min(len(flat), start + width)
    if end < len(flat):
        end = flat.rfind(" ", start, end) if flat.rfind(" ", start, end) > start else end
    return ("…" if start else "") + flat[start:end].strip() + ("…" if end < len(flat) else "")
