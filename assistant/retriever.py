"""Hybrid search over the index: vector and full-text results fused by reciprocal rank."""
from __future__ import annotations

import re
from typing import Protocol

from index_builder.store import IndexStore

from .events import Passage

RRF_K = 60  # the usual reciprocal-rank-fusion constant
_COLUMNS = ["id", "title", "source", "path", "page", "section", "text"]


class Retriever(Protocol):
    def search(self, query: str, k: int) -> list[Passage]: ...


def fuse(rankings: list[list[str]], k: int, rrf_k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion of several rankings of ids; best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking):
            scores[pid] = scores.get(pid, 0.0) + 1.0 / (rrf_k + rank + 1)
    return sorted(scores.items(), key=lambda kv: -kv[1])[:k]


def fts_query(text: str) -> str:
    """Plain words only: the full-text parser treats punctuation as query syntax."""
    return " ".join(re.findall(r"\w+", text))


class HybridRetriever:
    def __init__(self, store: IndexStore, embedder, candidates: int = 30):
        store.check_embedding_model(embedder.model_id)
        self.store = store
        self.embedder = embedder
        self.candidates = candidates
        self.table = store.passages

    def search(self, query: str, k: int) -> list[Passage]:
        n = max(k, self.candidates)
        vector = self.embedder.encode([query])[0]
        by_vector = (self.table.search(vector, vector_column_name="vector").distance_type("cosine")
                     .limit(n).select(_COLUMNS + ["_distance"]).to_list())
        by_text = []
        words = fts_query(query)
        if words:
            by_text = (self.table.search(words, query_type="fts", fts_columns="search_text")
                       .limit(n).select(_COLUMNS + ["_score"]).to_list())
        rows = {r["id"]: r for r in by_vector + by_text}
        fused = fuse([[r["id"] for r in by_vector], [r["id"] for r in by_text]], k)
        return [self._passage(rows[pid], score) for pid, score in fused]

    @staticmethod
    def _passage(row: dict, score: float) -> Passage:
        return Passage(id=row["id"], text=row["text"], title=row.get("title") or "",
                       source=row.get("source") or "", path=row.get("path") or "",
                       page=row.get("page") or None, section=row.get("section") or "",
                       score=round(float(score), 6))
