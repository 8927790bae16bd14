"""What the MCP tools and resources do, apart from the protocol: each a plain function of the
settings over the services, returning JSON-ready dicts (an ask: its Answer, for results.py). The
reader loads on the first ask and stays loaded (the registry keeps one per process); a search
never loads it."""
from __future__ import annotations

import threading
from dataclasses import replace
from typing import Callable

from models.config import Settings

from .. import service
from ..services import collections as collection_service
from ..services import files as file_service
from ..services import search as search_service
from ..events.core import Answer, Event
from ..strategies import DEFAULT_STRATEGY, make_strategy


class Documents:
    """One person's index, searched and asked; one question at a time (the reader is one)."""

    def __init__(self, settings: Settings, context_factory=None, searcher=None):
        """context_factory, searcher: the models and search a host server already holds (`assistant
        serve` mounting MCP over HTTP); by default the registry's and search_service's."""
        self.settings = settings
        self.context_factory, self.searcher = context_factory, searcher
        self._asking = threading.Lock()

    def _within(self, collection: str | None) -> Settings:
        """A collection given ("" too) is checked by the one validator every entry point uses."""
        if collection is None:
            return self.settings
        return replace(self.settings, collection=collection_service.check_name(collection))

    def search(self, query: str, k: int = 5, collection: str | None = None) -> dict:
        if self.searcher is not None:
            hits = self.searcher(search_service.check_query(query, k), k, collection)
        else:
            hits = search_service.search(self._within(collection), query, k)
        return {"query": query, "passages": [_hit_row(h) for h in hits]}

    def ask(self, question: str, collection: str | None = None, strategy: str = DEFAULT_STRATEGY,
            on_event: Callable[[Event], None] | None = None,
            should_stop: Callable[[], bool] | None = None) -> Answer | None:
        """The question's Answer (None if none came); on_event(event) hears each step on the way,
        should_stop() ends the question at the reader's next token (models.errors.Interrupted)."""
        chosen = make_strategy(strategy or DEFAULT_STRATEGY)  # a bad spec: one line, before any load
        settings = self._within(collection)
        with self._asking:
            answer = None
            for event in service.ask(question, chosen, settings, should_stop=should_stop,
                                     context_factory=self.context_factory):
                if on_event is not None:
                    on_event(event)
                if isinstance(event, Answer):
                    answer = event
        return answer

    def sources(self) -> dict:
        status = service.status(self.settings)
        return {"index": status.path, "documents": status.documents, "passages": status.passages,
                "sources": [{"name": s.name, "kind": s.kind, "documents": s.documents, "passages": s.passages,
                             "collections": list(s.recorded.get("collections") or ["default"]),
                             "incomplete": s.incomplete} for s in status.sources]}

    def files(self) -> list[dict]:
        """The indexed files (at most file_service.MAX_FILES) as resources name them."""
        return [{"doc_id": f.doc_id, "file": f.path, "title": f.title, "source": f.source, "passages": f.passages}
                for f in file_service.indexed_files(self.settings)]

    def file_text(self, doc_id: str) -> str:
        found, text = file_service.file_text(self.settings, doc_id)
        return f"{found.path or found.title}\n\n{text}"

    def collections(self) -> dict:
        return {"collections": [{"name": c.name, "sources": c.sources, "documents": c.documents,
                                 "passages": c.passages} for c in collection_service.list_collections(self.settings)]}


def _hit_row(hit) -> dict:
    return {"rank": hit.rank, "file": hit.file, "where": hit.where, "page": hit.page, "section": hit.section,
            "title": hit.title, "text": hit.text, "source": hit.source, "score": hit.score}
