"""Where the models run when a GPU is there: the reader's layers (llama.cpp's build decides) and
the passage embedder (torch's devices decide). CI has no GPU: what a GPU machine would see is
built here from fake package folders and a patched torch; the real run on an H100 is in
EVALUATION.md ("On a GPU")."""
from __future__ import annotations

import sys
import types

import pytest

from models.config import Settings, load_settings
from models.embedder import passage_device
from models.errors import ConfigError, ModelError
from models.reader import gpu_offload


def _fake_llama_package(tmp_path, monkeypatch, libraries: list[str]) -> None:
    package = tmp_path / "site" / "fake_llama_cpp"
    (package / "lib").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name in libraries:
        (package / "lib" / name).write_bytes(b"")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    gpu_offload.gpu_backend.cache_clear()


@pytest.mark.parametrize("libraries, backend", [
    (["libggml-cpu.so", "libllama.so"], None),
    (["libggml-cpu.so", "libggml-cuda.so", "libggml-cuda.so.0", "libllama.so"], "cuda"),
    (["libggml-metal.dylib", "libllama.dylib"], "metal"),
    (["ggml-vulkan.dll", "llama.dll"], "vulkan"),
    (["libggml-cudaish.so"], None),  # a name that merely starts alike is not a backend
])
def test_the_gpu_backend_is_read_from_the_installed_libraries(tmp_path, monkeypatch, libraries, backend):
    _fake_llama_package(tmp_path, monkeypatch, libraries)
    try:
        assert gpu_offload.gpu_backend("fake_llama_cpp") == backend
    finally:
        gpu_offload.gpu_backend.cache_clear()


def test_a_missing_package_has_no_gpu_backend():
    gpu_offload.gpu_backend.cache_clear()
    try:
        assert gpu_offload.gpu_backend("no_such_package_here") is None
    finally:
        gpu_offload.gpu_backend.cache_clear()


def test_all_layers_go_to_the_gpu_by_default_only_with_a_gpu_build():
    assert Settings().n_gpu_layers == -1
    assert gpu_offload.gpu_layers(-1, "cuda") == -1
    assert gpu_offload.gpu_layers(20, "metal") == 20
    assert gpu_offload.gpu_layers(0, "cuda") == 0  # the user said: CPU only
    assert gpu_offload.gpu_layers(-1, None) == 0  # a CPU build loads exactly as before


def test_models_list_says_where_the_reader_runs(monkeypatch):
    monkeypatch.setattr(gpu_offload, "gpu_backend", lambda: "cuda")
    assert gpu_offload.describe(-1) == "gpu (cuda, all layers)"
    assert gpu_offload.describe(12) == "gpu (cuda, 12 layers)"
    assert gpu_offload.describe(0) == "cpu"
    monkeypatch.setattr(gpu_offload, "gpu_backend", lambda: None)
    assert gpu_offload.describe(-1) == "cpu (llama-cpp-python built without GPU support)"


def _fake_torch(monkeypatch, cuda: bool, mps: bool) -> None:
    torch = types.SimpleNamespace(
        __version__="9.9.9+fake",
        cuda=types.SimpleNamespace(is_available=lambda: cuda),
        backends=types.SimpleNamespace(mps=types.SimpleNamespace(is_available=lambda: mps)))
    monkeypatch.setitem(sys.modules, "torch", torch)


@pytest.mark.parametrize("cuda, mps, setting, backend, expected", [
    (True, False, "auto", "torch", "cuda"),
    (False, True, "auto", "torch", "mps"),
    (False, False, "auto", "torch", "cpu"),
    (True, False, "cpu", "torch", "cpu"),
    (True, False, "auto", "onnx", "cpu"),  # onnxruntime-gpu is not what the package installs
    (True, False, "cuda", "onnx", "cuda"),  # asked for by name: the user installed it
])
def test_passages_are_encoded_where_the_setting_and_the_machine_say(monkeypatch, cuda, mps, setting, backend,
                                                                   expected):
    _fake_torch(monkeypatch, cuda, mps)
    assert passage_device(setting, backend) == expected


def test_a_gpu_asked_for_by_name_that_is_not_there_is_one_line(monkeypatch):
    _fake_torch(monkeypatch, cuda=False, mps=False)
    with pytest.raises(ModelError) as error:
        passage_device("cuda")
    assert str(error.value) == ('embedder_device = "cuda" but torch 9.9.9+fake sees no cuda device here; '
                                'use "auto" or "cpu"')
    with pytest.raises(ModelError, match="unknown embedder device 'tpu'"):
        passage_device("tpu")


def test_the_embedder_device_setting_is_checked(monkeypatch):
    assert Settings().embedder_device == "auto"
    assert load_settings(embedder_device="cpu").embedder_device == "cpu"
    monkeypatch.setenv("ASSISTANT_EMBEDDER_DEVICE", "tpu")
    with pytest.raises(ConfigError, match="embedder_device = tpu is not one of the allowed values"):
        load_settings()
