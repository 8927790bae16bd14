"""The default embedder (issue 53): "auto" is onnx (the fp32 export: torch's vectors) on a CPU,
torch on a GPU, onnx-int8 for an index built with it, model2vec for an index of model2vec vectors;
a new index records what built it, `index add` that mixes int8 and exact vectors says so in one
line; the onnx backends' passages are encoded by onnxruntime alone, with the vectors
sentence-transformers gives (for fp32, the vectors torch gives)."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from index_builder.store import META_FILE, IndexStore
from models import embedder_choice
from models.config import load_settings
from models.embedder_choice import INDEX_META, backend_note, recorded_backend, resolve_backend


def _settings(tmp_path, **values):
    return load_settings(data_dir=tmp_path / "data", index=tmp_path / "index", **values)


def test_auto_is_onnx_on_a_cpu_torch_on_a_gpu_and_an_int8_index_keeps_int8(tmp_path, monkeypatch):
    monkeypatch.setattr(embedder_choice, "gpu_for_torch", lambda: False)
    assert resolve_backend(_settings(tmp_path)) == "onnx"
    IndexStore.open_or_create(tmp_path / "index", "m:8", 8, "torch")  # torch's vectors are onnx's
    assert resolve_backend(_settings(tmp_path)) == "onnx"
    shutil.rmtree(tmp_path / "index")
    IndexStore.open_or_create(tmp_path / "index", "m:8", 8, "onnx-int8")  # int8 vectors: kept as they are
    assert recorded_backend(tmp_path / "index") == "onnx-int8"
    assert resolve_backend(_settings(tmp_path)) == "onnx-int8"
    shutil.rmtree(tmp_path / "index")
    assert resolve_backend(_settings(tmp_path, embedder_device="cuda")) == "torch"  # asked for a GPU
    assert resolve_backend(_settings(tmp_path, embedder_backend="torch")) == "torch"  # asked by name
    assert resolve_backend(_settings(tmp_path, embedder_backend="onnx-int8")) == "onnx-int8"
    monkeypatch.setattr(embedder_choice, "gpu_for_torch", lambda: True)
    assert resolve_backend(_settings(tmp_path)) == "torch"
    assert resolve_backend(_settings(tmp_path, embedder_device="cpu")) == "onnx"


def test_an_index_of_model2vec_vectors_keeps_model2vec_and_a_new_index_records_its_backend(tmp_path, monkeypatch):
    monkeypatch.setattr(embedder_choice, "gpu_for_torch", lambda: False)
    assert INDEX_META == META_FILE
    IndexStore.open_or_create(tmp_path / "index", "m+model2vec:8", 8)  # built before backends were recorded
    assert recorded_backend(tmp_path / "index") == "model2vec"  # said by its model id
    assert resolve_backend(_settings(tmp_path)) == "model2vec"
    IndexStore.open_or_create(tmp_path / "other", "m:8", 8, "torch")
    assert json.loads((tmp_path / "other" / META_FILE).read_text())["embedder_backend"] == "torch"
    assert resolve_backend(load_settings(data_dir=tmp_path, index=tmp_path / "other")) == "onnx"  # on this CPU
    assert "built with the torch embedder" in backend_note("torch", "onnx-int8")
    assert "built with the onnx-int8 embedder" in backend_note("onnx-int8", "onnx")
    assert backend_note("onnx", "onnx") == backend_note(None, "onnx") == backend_note("model2vec", "onnx") == ""
    assert backend_note("torch", "onnx") == backend_note("onnx", "torch") == ""  # the same vectors


@pytest.mark.real_models
def test_onnx_passages_are_encoded_without_torch_as_sentence_transformers_encodes_them(tmp_path):
    """int8, one text at a time (its activations are quantised per call, so a batch's neighbours
    move a vector slightly) gives the library's vector; batched, the same to a cosine of 0.98."""
    import subprocess

    from models.registry import bundled_embedder_path, load_embedder

    path, cache = bundled_embedder_path(), tmp_path / "models"
    embedder = load_embedder(path, "onnx-int8", cache)  # exports once (that loads torch, in this process)
    ours = np.stack([embedder.encode([t, t])[0] for t in TEXTS])  # two texts: the passage path, not the question one
    reference = embedder.model.encode(TEXTS, normalize_embeddings=True, batch_size=1)
    assert np.min(np.sum(ours * reference, axis=1)) > 0.9999
    batched = embedder.encode(TEXTS * 10)
    assert np.min(np.sum(batched[:3] * reference, axis=1)) > 0.98
    code = ("import sys; from pathlib import Path; from models.registry import bundled_embedder_path, load_embedder; "
            f"e = load_embedder(bundled_embedder_path(), 'onnx-int8', Path({str(cache)!r})); e.load(); "
            "e.encode(['a', 'b']); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.real_models
def test_the_default_onnx_export_gives_torchs_vectors_batched_and_without_torch(tmp_path):
    """The CPU default's passages, batched (padding and all), are torch's vectors: nothing about
    an index changes with the faster backend but its speed."""
    import subprocess

    from models.registry import bundled_embedder_path, load_embedder

    path, cache = bundled_embedder_path(), tmp_path / "models"
    onnx = load_embedder(path, "onnx", cache)
    onnx.encode(["a question asks nothing of the export"])
    assert not cache.exists()  # a question is torch's vector in numpy: no export to ask
    assert onnx.export_pending  # `index add` says so before the wait
    texts = TEXTS * 7 + ["a", "short one", " ".join(["a long passage about rivers and herons"] * 60)]
    torch_vectors = load_embedder(path, "torch", cache).model.encode(texts, normalize_embeddings=True, batch_size=64)
    ours = onnx.encode(texts)
    assert (cache / f"{path.name}-onnx" / "onnx" / "model_O3.onnx").is_file()  # the fused export, fp32
    assert not onnx.export_pending and not load_embedder(path, "onnx", cache).export_pending
    assert np.min(np.sum(ours * torch_vectors, axis=1)) > 0.99999
    code = ("import sys; from pathlib import Path; from models.registry import bundled_embedder_path, load_embedder; "
            f"e = load_embedder(bundled_embedder_path(), 'onnx', Path({str(cache)!r})); e.load(); e.encode(['a', 'b']); "
            "e.encode(['one question']); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


TEXTS = ["Herons nest in the marsh near the river.", "Otters float on their backs to eat.",
         "The bridge over the river was built of stone in the twelfth century by the town council."]
