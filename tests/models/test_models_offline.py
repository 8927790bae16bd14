"""Models offline: `models add` of a catalog file makes the catalog name usable (by checksum,
or by the catalog's file name where no hash is pinned), a file placed where the offline `pull`
says is found, the catalog is ordered for the machine, and long names keep `models list` aligned."""
from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys

import pytest

from assistant.cli.models_catalog import MAX_NAME, name_column
from helpers.gguf_tiny import chat_reader_header
from models.downloads.catalog import find_entry, load_catalog
from models.downloads.catalog_fit import ordered_for
from models.downloads.catalog_match import entry_for_file, installed_entry
from models.downloads.installed import Installed, downloads_dir, load_installed, record
from models.errors import ModelError
from models.machine import Machine
from models.reader.choice import resolve


@pytest.fixture
def env(tmp_path):
    (tmp_path / "config.toml").touch()
    base = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
    return dict(base, ASSISTANT_DATA_DIR=str(tmp_path / "data"), ASSISTANT_CONFIG=str(tmp_path / "config.toml"),
                HF_HUB_OFFLINE="1")


def assistant(*args, env):
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_an_added_file_with_the_catalog_file_name_is_that_entry_installed(tmp_path, env):
    entry = find_entry("qwen2.5-1.5b")  # no pinned hash: matched by the catalog's file name
    assert not entry.sha256
    path = chat_reader_header(tmp_path / entry.files[0], tensors=1)
    added = assistant("models", "add", str(path), env=env)
    assert added.returncode == 0, added.stderr
    assert "added qwen2.5-1.5b" in added.stdout and "catalog's qwen2.5-1.5b" in added.stdout
    listed = assistant("models", "list", env=env)
    [line] = [row for row in listed.stdout.splitlines() if row.strip().startswith("qwen2.5-1.5b ")
              and "GB" in row and "reader" in row]
    assert line.rstrip().endswith("installed")
    found, model = resolve("qwen2.5-1.5b", tmp_path / "data")  # `models use NAME`, offline
    assert found == path.resolve() and model.name == "qwen2.5-1.5b"


def test_a_file_matching_a_pinned_hash_is_the_entry_whatever_its_name(tmp_path):
    path = chat_reader_header(tmp_path / "my-own-name.gguf", tensors=1)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    catalog = [dataclasses.replace(e, sha256=sha) if e.name == "qwen2.5-coder-1.5b" else e for e in load_catalog()]
    assert entry_for_file(path, sha, catalog).name == "qwen2.5-coder-1.5b"
    assert entry_for_file(path, "0" * 64, catalog) is None
    data = tmp_path / "data"
    record(data, Installed("my-own-name", str(path), sha256=sha))
    entry = next(e for e in catalog if e.name == "qwen2.5-coder-1.5b")
    assert installed_entry(data, entry).path == str(path)


def test_a_file_placed_where_offline_pull_says_is_found_and_recorded(tmp_path):
    data = tmp_path / "data"
    entry = find_entry("llama3.2-3b")
    with pytest.raises(ModelError, match="models add FILE"):
        resolve(entry.name, data)
    target = downloads_dir(data, entry.repo) / entry.files[0]
    target.parent.mkdir(parents=True)
    chat_reader_header(target, tensors=1)
    path, model = resolve(entry.name, data)
    assert path == target.resolve() and model.name == entry.name
    assert [m.name for m in load_installed(data)] == [entry.name]


def test_the_catalog_is_ordered_for_a_small_machine_without_a_gpu():
    small = Machine(ram_gb=4, cores=2)
    placed = ordered_for(small, load_catalog())
    names = [p.entry.name for p in placed]
    assert names[:2] == ["qwen2.5-coder-1.5b", "qwen2.5-1.5b"]  # fit and light first
    seven = next(p for p in placed if p.entry.name == "qwen2.5-7b")
    assert not seven.fits and "needs a GPU" in seven.note
    assert names.index("qwen2.5-7b") > names.index("llama3.2-3b")  # after every reader that fits
    assert "slow on 2 cores" in next(p for p in placed if p.entry.name == "qwen2.5-3b").note
    assert names[-1] == "flan-t5-large"  # not a reader: last
    tiny = ordered_for(Machine(ram_gb=2, cores=2), load_catalog())
    assert not any(p.fits for p in tiny if p.entry.is_reader)
    big = ordered_for(Machine(ram_gb=64, gpu_name="test GPU", gpu_vram_gb=24, cores=16), load_catalog())
    assert big[0].entry.name == "qwen2.5-7b" and big[0].fits
    assert all(e.good_for for e in load_catalog())


def test_a_long_name_gets_its_own_line_and_keeps_the_columns():
    long = "x" * (MAX_NAME + 10)
    width, cell = name_column(["short", long])
    assert width == MAX_NAME
    assert len(cell("short", "   ")) == 3 + MAX_NAME
    first, second = cell(long, "   ").split("\n")
    assert first == "   " + long and len(second) == 3 + MAX_NAME
