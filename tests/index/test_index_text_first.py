"""Full text first (issue 53): a search made while `index add` runs in another process, holding
the write lock between its two phases, finds a passage that has no vector yet; kill -9 there and
the same command again leave every passage searchable and embedded once; `index status` counts
the passages that wait.

The child is the real CLI with a hash embedder swapped in (no model load). It stops between the
phases on ASSISTANT_INDEX_PAUSE_FILE: it creates that file and waits until it is removed, so the
test acts exactly there, without sleeps."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assistant import service
from index_builder import lock
from index_builder.documents import document_id, passage_id
from index_builder.embedding import PAUSE_ENV
from index_builder.store import IndexStore
from models.config import load_settings
from models.errors import IndexBusy

from helpers.hash_embedder import HashEmbedder, write

REPO = Path(__file__).resolve().parents[2]
FILES = 12
LAUNCHER = f"""
import sys
sys.path.insert(0, {str(REPO)!r}); sys.path.insert(0, {str(REPO / "tests")!r})
from helpers.hash_embedder import HashEmbedder
from models import registry
registry.get_embedder = lambda settings: HashEmbedder()
sys.argv = ["assistant", *sys.argv[1:]]
from assistant.cli.main import run
run()
"""


def make_notes(folder: Path) -> None:
    for i in range(FILES):
        write(folder, f"note{i:02d}.md", f"# Note {i}\n\nzq{i}marker herons nest in the reeds near the river.")


def clean_ids(folder: Path) -> list[str]:
    source = str(folder.resolve())
    return sorted(passage_id(document_id(source, p.name), 0) for p in folder.glob("*.md"))


def start(tmp_path: Path, folder: Path, index: Path, pause: Path | None):
    env = dict(os.environ, ASSISTANT_CONFIG=os.devnull, ASSISTANT_DATA_DIR=str(tmp_path / "data"), HF_HUB_OFFLINE="1")
    env.pop(PAUSE_ENV, None)
    if pause is not None:
        env[PAUSE_ENV] = str(pause)
    launcher = tmp_path / "launch.py"
    launcher.write_text(LAUNCHER, encoding="utf-8")
    return subprocess.Popen([sys.executable, str(launcher), "index", "add", str(folder), "--index", str(index)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, child) -> None:
    deadline = time.monotonic() + 120  # a bound on a hung child, not a measurement
    while not path.exists():
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the indexer never reached its pause"
        time.sleep(0.02)


def test_a_search_between_the_phases_finds_text_without_vectors_and_a_kill_there_resumes(tmp_path):
    folder, index, pause = tmp_path / "docs", tmp_path / "index", tmp_path / "pause"
    make_notes(folder)
    child = start(tmp_path, folder, index, pause)
    try:
        wait_for(pause, child)  # every file written as text; no vector yet; the write lock held
        with pytest.raises(IndexBusy):
            lock.acquire(index, wait=0)
        settings = load_settings(index=index, data_dir=tmp_path / "data")
        found = service.open_retriever(settings, lambda s: HashEmbedder()).search("zq7marker herons", 3)
        assert found and found[0].path == "note07.md"  # by full text: it has no vector yet
        store = IndexStore.open(index)
        assert store.status().waiting == FILES == store.passages.count_rows("vector IS NULL")
        child.send_signal(signal.SIGKILL)  # kill -9 between the two phases
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()

    from assistant.cli.main import app
    from typer.testing import CliRunner

    shown = CliRunner().invoke(app, ["index", "status", "--index", str(index)],
                               env={"ASSISTANT_CONFIG": os.devnull, "ASSISTANT_DATA_DIR": str(tmp_path / "data")})
    assert f"waiting:         {FILES} passages wait for their vectors" in shown.output, shown.output

    rerun = start(tmp_path, folder, index, None)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    assert f"0 indexed, 0 updated, {FILES} unchanged" in out  # the text was kept: nothing read again
    store = IndexStore.open(index)
    rows = store.passages.to_arrow().to_pylist()
    assert sorted(r["id"] for r in rows) == clean_ids(folder)  # each passage once
    assert all(r["vector"] is not None for r in rows) and store.status().waiting == 0
    assert store.documents.count_rows() == FILES
    found = service.open_retriever(load_settings(index=index, data_dir=tmp_path / "data"),
                                   lambda s: HashEmbedder()).by_vector(HashEmbedder().encode(["x"])[0], FILES)
    assert len(found) == FILES  # every passage now reached by the vector side too


def test_the_pause_waits_until_its_file_is_removed_and_the_run_then_finishes(tmp_path):
    folder, index, pause = tmp_path / "docs", tmp_path / "index", tmp_path / "pause"
    make_notes(folder)
    child = start(tmp_path, folder, index, pause)
    wait_for(pause, child)
    assert child.poll() is None  # held there
    pause.unlink()
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert IndexStore.open(index).status().waiting == 0
    assert f"{FILES} files, {FILES} passages ({FILES} embedded) in " in out  # the last line: where the time went
