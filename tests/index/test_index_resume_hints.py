"""The hint `index status` gives for an interrupted run resumes exactly what was asked (issue 54):
its collection, its options and its index. A real `index add ... --collection NAME` is killed
with kill -9 part-way, the printed hint is run verbatim, and the folder lands in NAME alone."""
from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers import hash_cli

from index_builder.documents import document_id, passage_id
from index_builder.extract import READ_AS
from index_builder.store import IndexStore

FILES = 60
HINT = re.compile(r"\(incomplete: run `([^`]+)` again to finish\)")


def make_folder(folder: Path) -> Path:
    words = "river otter heron beaver reed marsh willow stone current meadow".split()
    folder.mkdir(parents=True)
    for i in range(FILES):
        body = " ".join(words[(i * 3 + j) % len(words)] for j in range(20))
        (folder / f"note{i:03d}.txt").write_text(f"Note {i}. {body}.\n", encoding="utf-8")
    return folder


def committed(index: Path) -> int:
    import lancedb

    try:
        return lancedb.connect(str(index)).open_table("passages").count_rows()
    except Exception:  # no index or no table yet
        return 0


def killed_part_way(tmp_path: Path, env: dict, index: Path, *args: str) -> None:
    proc = hash_cli.start(tmp_path, dict(env, EMBED_DELAY="0.15", BATCH_PASSAGES="4"), *args)
    deadline = time.monotonic() + 120
    while committed(index) < 8 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert 0 < committed(index)
    # part-way: not every file read yet, or (full text first) passages still waiting for vectors
    assert committed(index) < FILES or IndexStore.open(index).waiting_count() > 0


@pytest.mark.parametrize("own_index", [False, True])
def test_the_hint_after_a_kill_during_a_collection_add_restores_exactly_that_collection(tmp_path, own_index):
    folder = make_folder(tmp_path / "docs")
    data = tmp_path / "data"
    index = tmp_path / "elsewhere" if own_index else data / "index"
    where = ["--index", str(index)] if own_index else []
    env = hash_cli.environment(data)
    killed_part_way(tmp_path, env, index, "index", "add", str(folder), "--collection", "work",
                    "--max-size", "20", *where)

    status = hash_cli.run(tmp_path, env, "index", "status", *where)
    hints = HINT.findall(status.stdout)
    assert len(hints) == 1, status.stdout + status.stderr
    expected = f"assistant index add {folder.resolve()} --collection work --max-size 20"
    assert hints[0] == expected + (f" --index {index.resolve()}" if own_index else "")

    resumed = subprocess.run(hash_cli.as_printed(tmp_path, hints[0]), env=env, capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "(collection work)" in resumed.stdout
    store = IndexStore.open(index)
    assert store.meta["sources"] == {str(folder.resolve()): {"kind": "folder", "collections": ["work"],
                                                             "read_as": READ_AS}}
    listed = hash_cli.run(tmp_path, env, "index", "collections", *where).stdout
    assert listed.split()[0] == "work" and "default" not in listed
    source = str(folder.resolve())
    expected_ids = sorted(passage_id(document_id(source, p.name), 0) for p in folder.glob("*.txt"))
    assert sorted(store.passages.to_arrow()["id"].to_pylist()) == expected_ids  # nothing lost, nothing twice


def test_the_hint_names_each_kinds_options_and_an_older_index_still_resumes_its_collection():
    from assistant.service import rebuild_command
    from index_builder.resume import resume_options
    from index_builder.store_status import SourceStatus
    from index_builder.walk import DEFAULT_MAX_SIZE

    def hint(name, kind, recorded):
        return rebuild_command(SourceStatus(name, kind, 1, 2, incomplete=True, recorded=recorded))

    assert hint("/docs", "folder", {"collections": ["default", "work"],
                                    "resume": resume_options("work", DEFAULT_MAX_SIZE)}) == \
        "assistant index add /docs --collection work"
    assert hint("/docs", "folder", {"collections": ["work", "default"],
                                    "resume": resume_options("default", DEFAULT_MAX_SIZE)}) == \
        "assistant index add /docs"  # it was resuming the default collection's add
    assert hint("/a b/n.md", "file", {"resume": resume_options("home", 3 * 1024 * 1024)}) == \
        "assistant index add '/a b/n.md' --collection home --max-size 3"
    assert hint("/w.xml.bz2", "wikipedia", {"resume": {"limit": 500}}) == \
        "assistant index wikipedia /w.xml.bz2 --limit 500"
    assert hint("/docs", "folder", {"collections": ["work"]}) == \
        "assistant index add /docs --collection work"  # recorded before `resume` was
    assert hint("/docs", "folder", {"collections": ["work", "home"]}) == "assistant index add /docs"
