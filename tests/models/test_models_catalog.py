"""The catalog file, the reader recommendation, GGUF header reading, the free-space check and the
hash functions of `models pull` (no network, no model loads)."""
import hashlib
import struct
from collections import namedtuple

import pytest

from helpers.gguf_tiny import CHATML, chat_reader_header, write_gguf
from models.downloads import download
from models.downloads.catalog import load_catalog, recommend
from models.downloads.download import RemoteFile, check_free_space, file_hash
from models.errors import ModelError
from models.reader.gguf_header import read_header


def test_every_catalog_entry_is_complete():
    catalog = load_catalog()
    names = [e.name for e in catalog]
    assert len(names) == len(set(names))
    readers = [e for e in catalog if e.is_reader]
    assert len(readers) >= 5 and any(e.gpu for e in readers)
    for entry in catalog:
        assert entry.repo.count("/") == 1 and entry.files and entry.licence and entry.quality
        assert entry.size_gb > 0 and entry.ram_gb > entry.size_gb
        assert entry.quality.startswith(("measured here", "not measured here"))
    for entry in readers:
        assert len(entry.files) == 1 and entry.files[0].endswith(".gguf") and entry.quantization
    [judge] = [e for e in catalog if e.role == "judge-base"]
    assert "model.safetensors" in judge.files and "export-judge" in judge.next


@pytest.mark.parametrize("ram, vram, expected", [
    (1.5, 0, None),                    # below every reader: keep SmolLM2
    (4, 0, "qwen2.5-coder-1.5b"),      # the measured reader
    (64, 0, "qwen2.5-coder-1.5b"),     # much RAM but no GPU: the 7B is not recommended on a CPU
    (16, 4, "qwen2.5-coder-1.5b"),     # a GPU too small for the 7B
    (16, 24, "qwen2.5-7b"),
])
def test_recommendation_follows_ram_and_gpu(ram, vram, expected):
    choice = recommend(ram, vram)
    assert (choice.entry.name if choice.entry else None) == expected
    assert choice.reason


def test_header_gives_template_and_skips_big_arrays(tmp_path):
    header = read_header(chat_reader_header(tmp_path / "m.gguf", vocab=5000))
    assert header.chat_template == CHATML and header.architecture == "llama"
    assert header.metadata["tokenizer.ggml.tokens"] is None  # skipped, not kept
    small = read_header(write_gguf(tmp_path / "s.gguf", {"general.tags": ["a", "b"]}))
    assert small.metadata["general.tags"] == ["a", "b"] and small.chat_template == ""


def test_damaged_headers_are_one_line_errors(tmp_path):
    good = chat_reader_header(tmp_path / "m.gguf").read_bytes()
    cases = {
        "not a GGUF": b"PK\x03\x04" + good[4:],
        "version 1": good[:4] + struct.pack("<I", 1) + good[8:],
        "truncated": good[: len(good) // 2],
        "metadata keys": good[:4] + struct.pack("<IQQ", 3, 0, 2**40),
        # a key claiming a 2**50-byte name must not be read into memory
        "damaged": good[:4] + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 2**50),
    }
    for needle, data in cases.items():
        path = tmp_path / "bad.gguf"
        path.write_bytes(data)
        with pytest.raises(ModelError) as caught:
            read_header(path)
        message = str(caught.value)
        assert needle in message and "\n" not in message, message


def test_free_space_is_checked_before_downloading(tmp_path, monkeypatch):
    remote = RemoteFile("o/r", "m.gguf", "c" * 40, 5 * 2**30, "e" * 64)
    Usage = namedtuple("Usage", "total used free")
    monkeypatch.setattr(download.shutil, "disk_usage", lambda _: Usage(10 * 2**30, 9 * 2**30, 2**30))
    with pytest.raises(ModelError, match=r"needs 5\.\d GB more .* 1\.0 GB is free"):
        check_free_space(tmp_path / "not" / "yet", remote)
    monkeypatch.setattr(download.shutil, "disk_usage", lambda _: Usage(100 * 2**30, 0, 90 * 2**30))
    check_free_space(tmp_path / "not" / "yet", remote)


def test_hashes_match_the_hubs_definitions(tmp_path):
    from huggingface_hub.utils.sha import git_hash

    path = tmp_path / "f.json"
    data = b'{"model_type": "t5"}\n' * 1000
    path.write_bytes(data)
    assert file_hash(path, "sha256") == hashlib.sha256(data).hexdigest()
    assert file_hash(path, "git-sha1") == git_hash(data)  # the ETag of a small (non-LFS) file
    assert RemoteFile("o/r", "f", "c", 1, "a" * 64).hash_kind == "sha256"
    assert RemoteFile("o/r", "f", "c", 1, "b" * 40).hash_kind == "git-sha1"
    assert RemoteFile("o/r", "f", "c", 1, "W/xyz").hash_kind == ""


def test_a_gpu_found_by_nvidia_smi_changes_the_recommendation(tmp_path, monkeypatch):
    from models.machine import this_machine

    tool = tmp_path / "nvidia-smi"
    tool.write_text("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, 81559'\necho 'NVIDIA T4, 15360'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    machine = this_machine()
    assert machine.gpu_name == "NVIDIA H100 80GB HBM3" and 79 < machine.gpu_vram_gb < 80
    assert recommend(machine.ram_gb, machine.gpu_vram_gb).entry.name == "qwen2.5-7b"
    tool.write_text("#!/bin/sh\nexit 9\n")  # a driver that does not answer: no GPU, no error
    assert this_machine().gpu_name == ""
