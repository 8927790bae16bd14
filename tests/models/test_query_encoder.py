"""A question's vector from the numpy encoder (no torch) is the vector sentence-transformers gives,
so a question asked cold searches the index exactly as one asked through the server did before."""
import json
import shutil

import numpy as np
import pytest

from models import query_encoder
from models.embedder import QUESTION_CHARS, Embedder
from models.errors import ModelError
from models.registry import bundled_embedder_path

QUESTIONS = [
    "How many days of leave do new employees get?",
    "Who founded it?",
    "x",
    "Ünïcödé café naïve: 東京タワー, 🙂 and a tab\tand CAPITALS",
    "When did the author of The Old Man and the Sea win the Nobel Prize in Literature, and for what?",
    " ".join(["a long question about the many projects and buoys of the Heron team"] * 40),  # truncated
]


@pytest.fixture(scope="module")
def bundled():
    return bundled_embedder_path()


@pytest.fixture(scope="module")
def reference(bundled):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(bundled), device="cpu", local_files_only=True)
    return model.encode(QUESTIONS, normalize_embeddings=True, convert_to_numpy=True)


def test_the_numpy_vectors_are_sentence_transformers_vectors(bundled, reference):
    assert query_encoder.supported(bundled)
    vectors = query_encoder.QueryEncoder(bundled).encode(QUESTIONS)
    assert vectors.shape == reference.shape and vectors.dtype == np.float32
    assert np.abs(vectors - reference).max() < 1e-5
    assert (vectors * reference).sum(1).min() > 0.99999


def test_the_embedder_answers_a_question_without_torch_and_passages_with_it(bundled, reference):
    embedder = Embedder(bundled)
    assert embedder.dim == 384 and embedder.questions is not None and embedder._model is None
    question = embedder.encode([QUESTIONS[0]])
    assert embedder._model is None  # one question: numpy
    assert np.abs(question[0] - reference[0]).max() < 1e-5
    passages = embedder.encode(QUESTIONS[:3])  # a batch: sentence-transformers, loaded now
    assert embedder._model is not None and np.abs(passages - reference[:3]).max() < 1e-5
    assert len(QUESTIONS[-1]) > QUESTION_CHARS


def _copy(bundled, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(bundled, folder)
    return folder


def test_another_pooling_or_architecture_is_left_to_sentence_transformers(bundled, tmp_path):
    folder = _copy(bundled, tmp_path)
    pooling = folder / "1_Pooling" / "config.json"
    settings = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**settings, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    assert not query_encoder.supported(folder)
    pooling.write_text(json.dumps(settings))
    config = folder / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "model_type": "roberta"}))
    assert not query_encoder.supported(folder)
    assert not query_encoder.supported(tmp_path / "missing")


def test_damaged_weights_are_one_error_line(bundled, tmp_path):
    folder = _copy(bundled, tmp_path)
    weights = folder / query_encoder.WEIGHTS
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(ModelError) as caught:
        Embedder(folder)
    assert "\n" not in str(caught.value) and str(folder) in str(caught.value)


def test_the_onnx_int8_backend_answers_a_question_without_torch_as_its_library_does(bundled, tmp_path_factory):
    """The onnx-int8 backend's question vector (onnxruntime and the tokenizer only) is the vector
    sentence-transformers' ONNX backend gives for the same export, so an index built with onnx is
    searched with its own kind of vector."""
    from sentence_transformers import SentenceTransformer

    from models.onnx_export import onnx_model

    cache = tmp_path_factory.mktemp("onnx-cache")
    embedder = Embedder(bundled, backend="onnx-int8", onnx_cache=cache)
    assert isinstance(embedder.questions, query_encoder.OnnxQueryEncoder) and embedder._model is None
    vectors = np.concatenate([embedder.encode([q]) for q in QUESTIONS[:5]])
    assert embedder._model is None  # one question at a time: no sentence-transformers
    folder, file_name = onnx_model(bundled, cache, int8=True)
    library = SentenceTransformer(str(folder), device="cpu", local_files_only=True, backend="onnx",
                                  model_kwargs={"file_name": file_name})
    # one at a time, as a question is encoded: int8 activations are scaled per run over the whole
    # batch, padding included, so a batch of five gives each a slightly different vector
    reference = np.concatenate([library.encode([q], normalize_embeddings=True, convert_to_numpy=True)
                                for q in QUESTIONS[:5]])
    assert vectors.shape == reference.shape and vectors.dtype == np.float32
    assert np.abs(vectors - reference).max() < 1e-5
