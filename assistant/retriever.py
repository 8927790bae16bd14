"""Hybrid search over the index: vector and full-text results fused by reciprocal rank."""
from __future__ import annotations

import re
from typing import Protocol, Sequence

from index_builder.store import IndexStore
from index_builder.store_tables import quote

from .events import Passage

RRF_K = 60  # the usual reciprocal-rank-fusion constant
_COLUMNS = ["id", "title", "source", "path", "page", "section", "text"]
# With a vector index (IVF-PQ, built on large tables): how many partitions a query visits, and
# how many PQ candidates per wanted row are re-ranked by exact distance. PQ distances alone put
# recall@10 near 0.5; refining brings it back near exact search. On 10^6 rows (244 partitions)
# recall@10 was 0.85 / 0.93 / 0.99 visiting 32 / 64 / 128 partitions, at 9 / 13 / 19 ms for the
# vector side (benchmarks/bench_query.py): 128 buys near-exact results for a few milliseconds.
NPROBES = 128
REFINE_FACTOR = 10


class Retriever(Protocol):
    def search(self, query: str, k: int) -> list[Passage]: ...

    def similarity(self, query: str, texts: Sequence[str]) -> list[float] | None:
        """Cosine similarity of each text to the query (None: this retriever cannot say)."""
        ...


def cosine_to_query(embedder, query: str, texts: Sequence[str]) -> list[float]:
    """Cosine similarity of each text's embedding to the query's."""
    import numpy as np

    vectors = np.asarray(embedder.encode([query, *texts]), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1) + 1e-9
    return [float(x) for x in (vectors[1:] @ vectors[0]) / (norms[1:] * norms[0])]


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
    def __init__(self, store: IndexStore, embedder, candidates: int = 30,
                 nprobes: int = NPROBES, refine_factor: int = REFINE_FACTOR, sources: Sequence[str] | None = None):
        """sources: search only the passages of these sources (a collection's); None: all."""
        store.check_embedding_model(embedder.model_id)
        self.store = store
        self.embedder = embedder
        self.candidates = candidates
        self.table = store.passages
        self.indexed = store.has_vector_index()
        self.nprobes = nprobes
        self.refine_factor = refine_factor
        from index_builder.health import searchable_filter

        with store.errors():  # passages of a document an interrupted run left unfinished stay out
            keep_out = searchable_filter(store)
        within = f"source IN ({quote(sources)})" if sources is not None else None  # one collection's sources
        self.where = " AND ".join(f"({c})" for c in (keep_out, within) if c) or None  # one filter, built once

    def by_vector(self, vector, n: int, columns: list[str] = _COLUMNS) -> list[dict]:
        query = (self.table.search(vector, vector_column_name="vector").distance_type("cosine")
                 .limit(n).select(columns + ["_distance"]))
        if self.indexed:
            query = query.nprobes(self.nprobes).refine_factor(self.refine_factor)
        if self.where:
            query = query.where(self.where, prefilter=True)
        return query.to_list()

    def by_text(self, query: str, n: int) -> list[dict]:
        words = fts_query(query)
        if not words:
            return []
        query = self.table.search(words, query_type="fts", fts_columns="search_text")
        if self.where:
            query = query.where(self.where, prefilter=True)
        return query.limit(n).select(_COLUMNS + ["_score"]).to_list()

    def search(self, query: str, k: int) -> list[Passage]:
        n = max(k, self.candidates)
        vector = self.embedder.encode([query])[0]
        with self.store.errors():  # a damaged index is one line saying so, not a Lance error
            by_vector = self.by_vector(vector, n)
            by_text = self.by_text(query, n)
        rows = {r["id"]: r for r in by_vector + by_text}
        fused = fuse([[r["id"] for r in by_vector], [r["id"] for r in by_text]], k)
        return [self._passage(rows[pid], score) for pid, score in fused]

    def similarity(self, query: str, texts: Sequence[str]) -> list[float]:
        return cosine_to_query(self.embedder, query, texts)

    @staticmethod
    def _passage(row: dict, score: float) -> Passage:
        return Passage(id=row["id"], text=row["text"], title=row.get("title") or "",
                       source=row.get("source") or "", path=row.get("path") or "",
                       page=row.get("page") or None, section=row.get("section") or "",
                       score=round(float(score), 6))
