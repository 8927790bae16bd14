"""Embedder backends: the choice, the model2vec table's identity and cache, and the one-line
message when an index of one kind of vector is queried with the other."""
from pathlib import Path

import numpy as np
import pytest

from assistant.retrieval.retriever import HybridRetriever
from index_builder.documents import Document
from index_builder.pipeline import write_documents
from index_builder.store import IndexStore
from index_builder.chunking import Chunk
from models import registry
from models.config import EMBEDDER_BACKENDS, Settings, load_settings
from models.embedder import model_name
from models.registry import load_embedder
from models.errors import IndexUnusable, ModelError
from models.static_embedder import PCA_DIMS, StaticEmbedder, distilled_folder, is_static_id


def _bundled() -> Path:
    return registry.bundled_embedder_path()


def tiny_table(cache: Path, dims: int = 8) -> Path:
    """A model2vec table of random vectors over the bundled MiniLM's vocabulary, saved where
    the distilled one would be, so that no distillation (2 minutes) runs in the tests."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_bundled() / "tokenizer.json"))
    vectors = np.random.default_rng(3).standard_normal((tokenizer.get_vocab_size(), dims)).astype(np.float32)
    folder = Path(cache) / f"{_bundled().parent.name}-model2vec-{PCA_DIMS}"
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(str(folder))
    return folder


def test_auto_is_the_default_backend_and_onnx_int8_torch_and_model2vec_choices():
    assert Settings().embedder_backend == "auto"  # resolved in tests/models/test_embedder_choice.py
    assert set(EMBEDDER_BACKENDS) == {"onnx", "onnx-int8", "torch", "model2vec"}
    assert load_settings(embedder_backend="model2vec").embedder_backend == "model2vec"


def test_model2vec_loads_its_cached_table_and_has_its_own_identity(tmp_path):
    tiny_table(tmp_path)
    embedder = load_embedder(_bundled(), "model2vec", tmp_path)
    assert isinstance(embedder, StaticEmbedder) and embedder.dim == 8
    assert embedder.model_id == f"{model_name(_bundled())}+model2vec:8" and is_static_id(embedder.model_id)
    assert not is_static_id(f"{model_name(_bundled())}:384")
    vectors = embedder.encode(["the otter swims in the river", "a steam engine on the railway"])
    assert vectors.shape == (2, 8) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert embedder.encode([]).shape == (0, 8)


def _index_with(path: Path, embedder) -> None:
    store = IndexStore.open_or_create(path, embedder.model_id, embedder.dim)
    docs = [Document(source="s", path=f"d{i}", title=f"D{i}", chunks=[Chunk(f"otter river note {i}")],
                     content_hash=str(i)) for i in range(3)]
    write_documents(store, embedder, docs)
    store.finish()


class Minilm384:
    """Stands in for the transformer backends: their identity, any vectors."""
    model_id = f"{model_name(_bundled())}:384"
    dim = 384

    def encode(self, texts):
        return np.full((len(texts), self.dim), 1 / np.sqrt(self.dim), dtype=np.float32)


def test_an_index_of_one_kind_queried_with_the_other_is_one_clear_line(tmp_path):
    tiny_table(tmp_path / "cache")
    static = load_embedder(_bundled(), "model2vec", tmp_path / "cache")
    _index_with(tmp_path / "static-index", static)
    _index_with(tmp_path / "minilm-index", Minilm384())
    with pytest.raises(IndexUnusable) as caught:
        HybridRetriever(IndexStore.open(tmp_path / "static-index"), Minilm384())
    message = str(caught.value)
    assert "\n" not in message and "holds model2vec vectors" in message and "--embedder-backend model2vec" in message
    with pytest.raises(IndexUnusable, match="holds the transformer's vectors.*onnx or torch"):
        HybridRetriever(IndexStore.open(tmp_path / "minilm-index"), static)
    assert HybridRetriever(IndexStore.open(tmp_path / "static-index"), static).search("otter river", 2)


def test_a_damaged_table_says_which_folder_to_delete(tmp_path):
    folder = tmp_path / f"{_bundled().parent.name}-model2vec-{PCA_DIMS}"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    with pytest.raises(ModelError) as caught:
        load_embedder(_bundled(), "model2vec", tmp_path)
    message = str(caught.value)
    assert "\n" not in message and str(folder) in message and "delete that folder" in message
