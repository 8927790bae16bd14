"""What the MCP tools do, apart from the protocol: each a plain function of the settings over the
services, returning JSON-ready dicts. The reader loads on the first ask and stays loaded (the
registry keeps one per process); a search never loads it."""
from __future__ import annotations

import threading
from dataclasses import replace

from models.config import Settings

from .. import service
from ..services import collections as collection_service
from ..services import search as search_service
from ..events.core import Answer, Passage
from ..strategies import DEFAULT_STRATEGY, make_strategy

LABELS = {"supported": "the cited passages support the answer",
          "pieced together": "the cited pages were found, but none states this answer: a pick or a chain's last step",
          "not in your documents": "the documents do not support this answer: do not present it as theirs",
          "from memory": "the reader's own knowledge, not the documents"}


class Documents:
    """One person's index, searched and asked; one question at a time (the reader is one)."""

    def __init__(self, settings: Settings, context_factory=None, searcher=None):
        """context_factory, searcher: the models and search a host server already holds (`assistant
        serve` mounting MCP over HTTP); by default the registry's and search_service's."""
        self.settings = settings
        self.context_factory, self.searcher = context_factory, searcher
        self._asking = threading.Lock()

    def _within(self, collection: str | None) -> Settings:
        return replace(self.settings, collection=collection) if collection else self.settings

    def search(self, query: str, k: int = 5, collection: str | None = None) -> dict:
        if self.searcher is not None:
            hits = self.searcher(search_service.check_query(query, k), k, collection)
        else:
            hits = search_service.search(self._within(collection), query, k)
        return {"query": query, "passages": [_hit_row(h) for h in hits]}

    def ask(self, question: str, collection: str | None = None, strategy: str = DEFAULT_STRATEGY) -> dict:
        chosen = make_strategy(strategy or DEFAULT_STRATEGY)  # a bad spec: one line, before any load
        settings = self._within(collection)
        with self._asking:
            answer = None
            for event in service.ask(question, chosen, settings, context_factory=self.context_factory):
                if isinstance(event, Answer):
                    answer = event
        return _answer_row(answer)

    def sources(self) -> dict:
        status = service.status(self.settings)
        return {"index": status.path, "documents": status.documents, "passages": status.passages,
                "sources": [{"name": s.name, "kind": s.kind, "documents": s.documents, "passages": s.passages,
                             "collections": list(s.recorded.get("collections") or ["default"]),
                             "incomplete": s.incomplete} for s in status.sources]}

    def collections(self) -> dict:
        return {"collections": [{"name": c.name, "sources": c.sources, "documents": c.documents,
                                 "passages": c.passages} for c in collection_service.list_collections(self.settings)]}


def _hit_row(hit) -> dict:
    return {"rank": hit.rank, "file": hit.file, "where": hit.where, "page": hit.page, "section": hit.section,
            "title": hit.title, "text": hit.text, "source": hit.source, "score": hit.score}


def _passage_row(n: int, p: Passage) -> dict:
    return {"n": n, "file": p.path, "where": p.citation_label(), "page": p.page, "section": p.section,
            "title": p.title, "text": p.text, "source": p.source}


def _answer_row(answer: Answer | None) -> dict:
    if answer is None:
        return {"answer": "", "grounding": "", "meaning": "no answer came", "citations": []}
    row = {"answer": answer.marked_text or answer.text, "grounding": answer.grounding or "not checked",
           "meaning": LABELS.get(answer.grounding, "this strategy does not check its answers"),
           "citations": [_passage_row(n, p) for n, p in enumerate(answer.citations, 1)],
           "seconds": answer.seconds}
    if answer.closest:
        row["closest"] = [_passage_row(n, p) for n, p in enumerate(answer.closest, 1)]
    return row
