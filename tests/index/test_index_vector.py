"""The index's vector side: the embedding model recorded and a mismatch refused, the IVF-PQ index
built once the table is large enough (and retrained as it grows), searched with refinement."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import index_builder.store_upkeep as store_module
from assistant.retrieval.retriever import HybridRetriever
from index_builder.chunking import Chunk
from index_builder.documents import Document
from index_builder.pipeline import write_documents
from index_builder.store import IndexStore
from models.embedder import Embedder
from models.errors import IndexUnusable, ModelError


class WordEmbedder:
    """16-d vectors from a text's words: texts that share words are near each other."""

    dim = 16

    def __init__(self, model_id: str = "words:16"):
        self.model_id = model_id

    def encode(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                rng = np.random.default_rng(zlib.crc32(word.encode()))
                out[row] += rng.standard_normal(self.dim)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def documents(count: int, start: int = 0):
    for i in range(start, start + count):
        yield Document(source="synthetic", path=f"doc{i}", title=f"Doc {i}",
                       chunks=[Chunk(f"item{i} tag{i % 7} colour{i % 13} shape{i % 5}")],
                       content_hash=str(i))


def test_another_embedding_model_is_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "index"
    store = IndexStore.open_or_create(path, "words:16", 16)
    write_documents(store, WordEmbedder(), documents(3))
    store.finish()
    with pytest.raises(IndexUnusable, match="built with embedding model words:16, not other:16"):
        IndexStore.open_or_create(path, "other:16", 16)
    with pytest.raises(IndexUnusable, match="built with embedding model words:16"):
        HybridRetriever(IndexStore.open(path), WordEmbedder("other:16"))


def test_unknown_embedder_backend_is_one_clear_error(tmp_path):
    with pytest.raises(ModelError, match="unknown embedder backend 'cuda'"):
        Embedder(tmp_path, backend="cuda")


def test_vector_index_built_when_large_refined_search_and_retrained_on_growth(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "VECTOR_INDEX_MIN_ROWS", 600)
    monkeypatch.setattr(store_module, "ROWS_PER_PARTITION", 64)
    embedder = WordEmbedder()
    store = IndexStore.open_or_create(tmp_path / "index", embedder.model_id, embedder.dim)
    write_documents(store, embedder, documents(500))
    store.finish()
    assert not store.has_vector_index()  # small: exact search

    write_documents(store, embedder, documents(300, start=500))
    store.finish()
    assert store.has_vector_index() and store.meta["vector_index_rows"] == 800
    retriever = HybridRetriever(store, embedder)
    assert retriever.indexed
    vector = embedder.encode(["item123 tag4 colour6 shape3"])[0]
    # the vector side alone finds it; among the first 3, as k-means starts at random and PQ codes
    # of these near-duplicate texts can put a neighbour first (1 run in many, seen in CI)
    assert "doc123" in [row["path"] for row in retriever.by_vector(vector, 3)]
    assert retriever.search("item123 tag4 colour6 shape3", k=3)[0].path == "doc123"

    write_documents(store, embedder, documents(2500, start=800))  # 4x the trained size
    store.finish()
    assert store.meta["vector_index_rows"] == 3300
    assert HybridRetriever(store, embedder).search("item3001 tag5 colour11 shape1", k=3)[0].path == "doc3001"



@pytest.mark.parametrize("kind", ["IvfHnswSq", "IvfPq"])
def test_indexed_search_finds_what_exact_search_finds_with_either_index_kind(tmp_path, monkeypatch, kind):
    # the kind built now (HNSW graphs in 3 partitions) and the IVF-PQ kind users' older indices have
    monkeypatch.setattr(store_module, "ROWS_PER_PARTITION", 1000)
    embedder = WordEmbedder()
    store = IndexStore.open_or_create(tmp_path / "index", embedder.model_id, embedder.dim)
    count = 3000
    write_documents(store, embedder, documents(count))
    store.finish()  # below the threshold: no vector index yet
    exact = HybridRetriever(store, embedder)
    assert not exact.indexed
    queries = [embedder.encode([f"tag{i % 7} colour{(i * 7) % 13} shape{i % 5} item{i}"])[0]
               for i in range(0, count, 150)]
    expected = [[row["id"] for row in exact.by_vector(vector, 5, ["id"])] for vector in queries]
    if kind == "IvfHnswSq":
        store_module.build_vector_index(store.passages, count)
    else:
        from lancedb.index import IvfPq
        store.passages.create_index("vector", config=IvfPq(distance_type="cosine", num_partitions=16,
                                                           num_sub_vectors=4))
    retriever = HybridRetriever(store, embedder)
    assert retriever.index_type == kind
    got = [[row["id"] for row in retriever.by_vector(vector, 5, ["id"])] for vector in queries]
    assert [g[0] for g in got] == [e[0] for e in expected]
    found = sum(len(set(g) & set(e)) for g, e in zip(got, expected))
    assert found >= 0.95 * 5 * len(queries)
