"""Hybrid search over the index: vector and full-text results fused by reciprocal rank."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, Sequence

from index_builder.store import MAX_PARTITIONS, IndexStore
from index_builder.store_tables import quote

from ..events.core import Passage
from .settings import SEARCH
_COLUMNS = ["id", "title", "source", "path", "page", "section", "text"]


@dataclass(frozen=True)
class VectorSearch:
    """How a query searches one kind of vector index: partitions visited (nprobes), candidates
    per wanted row re-ranked by exact distance (refine_factor), graph candidates (ef, HNSW only)."""

    nprobes: int
    refine_factor: int
    ef: int | None = None


# Per index kind (`IndexStore.vector_index_type`). HNSW-SQ (built now): every partition's graph
# is walked (there are at most MAX_PARTITIONS), since skipping one loses neighbours wherever
# k-means drew the borders; its graph candidates and exact re-rank: settings.SearchSettings.
# IVF-PQ (indices built before): PQ distances alone are too coarse, so it probes many partitions
# and re-ranks widely (the figures: settings.SearchSettings).
VECTOR_SEARCH = {
    "IvfHnswSq": VectorSearch(nprobes=MAX_PARTITIONS, refine_factor=SEARCH.hnsw_refine_factor, ef=SEARCH.hnsw_ef),
    "IvfPq": VectorSearch(nprobes=SEARCH.pq_nprobes, refine_factor=SEARCH.pq_refine_factor),
}
OTHER_INDEX = VECTOR_SEARCH["IvfPq"]  # another IVF kind: probe widely and refine, as for PQ


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


def fuse(rankings: list[list[str]], k: int, rrf_k: int = SEARCH.rrf_k,
         first_on_ties: Sequence[str] = ()) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion of several rankings of ids; best first. Of equal scores, the ids in
    `first_on_ties` come first (the full-text ranking's: they hold a query word), the others keep
    their order; unequal scores keep theirs. So a passage holding a word no other passage holds
    (full-text rank 1: 1/(rrf_k+1) at least) never falls below one found by vector alone that
    holds no query word (1/(rrf_k+1) at most)."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking):
            scores[pid] = scores.get(pid, 0.0) + 1.0 / (rrf_k + rank + 1)
    preferred = set(first_on_ties)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0] not in preferred))[:k]


def fts_query(text: str) -> str:
    """Plain words only: the full-text parser treats punctuation as query syntax."""
    return " ".join(re.findall(r"\w+", text))


DOCUMENT_KINDS = {"folder", "file"}  # a person's own files, as against a dump, passages or a dataset


def holds_documents(listed: dict, sources: Sequence[str] | None) -> bool:
    """Whether every source searched is a person's own files (a folder or a file added alone):
    the pipeline then answers a question whose support it finds without the multi-hop machinery
    tuned on encyclopedic pages."""
    kinds = {info.get("kind") for name, info in listed.items()
             if isinstance(info, dict) and (sources is None or name in sources)}
    return bool(kinds) and kinds <= DOCUMENT_KINDS


class HybridRetriever:
    def __init__(self, store: IndexStore, embedder, candidates: int = SEARCH.candidates,
                 vector_search: VectorSearch | None = None, sources: Sequence[str] | None = None):
        """sources: search only the passages of these sources (a collection's); None: all.
        vector_search: None: the settings for the table's kind of vector index."""
        store.check_embedding_model(embedder.model_id)
        self.store = store
        self.embedder = embedder
        self.candidates = candidates
        self.table = store.passages
        self.index_type = store.vector_index_type()
        self.indexed = self.index_type is not None
        self.vector_search = vector_search or VECTOR_SEARCH.get(self.index_type, OTHER_INDEX)
        from index_builder.health import searchable_filter

        with store.errors():  # passages of a document an interrupted run left unfinished stay out
            keep_out = searchable_filter(store)
        within = f"source IN ({quote(sources)})" if sources is not None else None  # one collection's sources
        self.holds_documents = holds_documents(store.meta.get("sources") or {}, sources)
        self.where = " AND ".join(f"({c})" for c in (keep_out, within) if c) or None  # one filter, built once
        self._word_counts: dict[tuple[str, int], int] = {}  # passages_with
        self.one_word_names: frozenset[str] | None = None  # index_files.one_word_names_of, read once

    def by_vector(self, vector, n: int, columns: list[str] = _COLUMNS, row_ids: bool = False) -> list[dict]:
        query = (self.table.search(vector, vector_column_name="vector").distance_type("cosine")
                 .limit(n).select(columns + ["_distance"]).with_row_id(row_ids))
        if self.indexed:
            settings = self.vector_search
            query = query.nprobes(settings.nprobes).refine_factor(settings.refine_factor)
            if settings.ef is not None:
                # a graph walk yields at most ef candidates, and refining wants n * refine_factor
                query = query.ef(max(settings.ef, n * settings.refine_factor))
        if self.where:
            query = query.where(self.where, prefilter=True)
        return query.to_list()

    def by_text(self, query: str, n: int, columns: list[str] = _COLUMNS, row_ids: bool = False) -> list[dict]:
        words = fts_query(query)
        if not words:
            return []
        query = self.table.search(words, query_type="fts", fts_columns="search_text").with_row_id(row_ids)
        if self.where:
            query = query.where(self.where, prefilter=True)
        return query.limit(n).select(columns + ["_score"]).to_list()

    def passages_with(self, word: str, cap: int = SEARCH.word_count_cap) -> int:
        """How many passages hold the word, counted up to `cap`: how rare it is in these files.
        Counted once per retriever, which reads the index as it was when opened (ask, chat, serve
        and the app open one per question): the default's ReFeed decision and the runner's label
        both ask."""
        key = (word, cap)
        if key not in self._word_counts:
            with self.store.errors():
                self._word_counts[key] = len(self.by_text(word, cap, ["id"]))
        return self._word_counts[key]

    def search(self, query: str, k: int) -> list[Passage]:
        n = max(k, self.candidates)
        vector = self.embedder.encode([query])[0]
        with self.store.errors():  # a damaged index is one line saying so, not a Lance error
            # ids first: the passages' columns are read for the k fused rows only, not for the
            # 2n candidates (on 10^6 rows reading them cost more than the full-text search)
            by_vector = self.by_vector(vector, n, ["id"], row_ids=True)
            by_text = self.by_text(query, n, ["id"], row_ids=True)
            text_ids = [r["id"] for r in by_text]
            fused = fuse([[r["id"] for r in by_vector], text_ids], k, first_on_ties=text_ids)
            rows = self._rows({r["id"]: r["_rowid"] for r in by_vector + by_text}, [pid for pid, _ in fused])
        return [self._passage(rows[pid], score) for pid, score in fused if pid in rows]

    def _rows(self, row_id_of: dict[str, int], ids: list[str]) -> dict[str, dict]:
        """The passages' columns of these ids, by the row ids their search gave (same table version)."""
        if not ids:
            return {}
        found = self.table.take_row_ids([row_id_of[pid] for pid in ids]).select(_COLUMNS).to_list()
        return {row["id"]: row for row in found}

    def similarity(self, query: str, texts: Sequence[str]) -> list[float]:
        return cosine_to_query(self.embedder, query, texts)

    @staticmethod
    def _passage(row: dict, score: float) -> Passage:
        return Passage(id=row["id"], text=row["text"], title=row.get("title") or "",
                       source=row.get("source") or "", path=row.get("path") or "",
                       page=row.get("page") or None, section=row.get("section") or "",
                       score=round(float(score), SEARCH.score_digits))
