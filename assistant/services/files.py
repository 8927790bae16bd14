"""The indexed files, listed and read back as their indexed text (the MCP server offers them as
resources): each document with its file inside its source, its title and its passages, and one
document's passages in reading order. No reader loads; the embedder does, as for a search (the
retriever checks the index was built with it)."""
from __future__ import annotations

from models.config import Settings
from models.errors import BadInputError

MAX_FILES = 1000  # listed at most: a Wikipedia dump holds millions of pages, no client lists them


def _files(settings: Settings):
    from index_builder.store import IndexStore
    from models import registry

    from ..retrieval.index_files import IndexFiles
    from ..retrieval.retriever import HybridRetriever

    store = IndexStore.open(settings.index_path)
    return IndexFiles(HybridRetriever(store, registry.get_embedder(settings)))


def indexed_files(settings: Settings, limit: int = MAX_FILES) -> list:
    """The first `limit` documents by path (retrieval.index_files.IndexedFile); NoIndex without an index."""
    return _files(settings).documents()[:limit]


def file_text(settings: Settings, doc_id: str) -> tuple[object, str]:
    """(the document, its passages' text in reading order); BadInputError when none has that id."""
    files = _files(settings)
    found = next((f for f in files.documents() if f.doc_id == doc_id), None)
    if found is None:
        raise BadInputError(f"no indexed document {doc_id!r}; list the resources again (the index may have changed)")
    return found, "\n\n".join(p.text for p in files.passages_of(doc_id))
