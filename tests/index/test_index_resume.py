"""kill -9 and Ctrl-C in the middle of a real build (the CLI in a subprocess) leave a usable
index; running the same command again ends with exactly the passages of a clean build.

The embedder is a real sentence-transformers folder, but a tiny randomly initialised BERT
(hidden size 32, one layer) with MiniLM's tokenizer: the test is about what reaches the disk,
and the tiny model keeps the three builds at seconds instead of minutes on a CI machine.
"""
from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from helpers.tiny_index import FILES, clean_build_ids, index_cmd, make_folder, passage_ids, tiny_embedder  # noqa: F401
from index_builder.store import IndexStore

pytestmark = pytest.mark.real_models  # end-to-end through the CLI in subprocesses

def committed_passages(data: Path, where: str | None = None) -> int:
    """Passages a reader sees now (0 before the first commit), read while the build writes;
    `where`: only those (e.g. with a vector)."""
    import lancedb

    try:
        return lancedb.connect(str(data / "index")).open_table("passages").count_rows(where)
    except Exception:  # no index or no table yet
        return 0


def start_and_interrupt(cmd, env, data: Path, sig, after_passages: int, where: str | None = None):
    """Start a build and send `sig` once more than `after_passages` passages are committed:
    waiting on passages rather than table versions, which the build also makes when it opens
    the index or removes stale rows, so that the interrupted run has really written a batch."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while committed_passages(data, where) <= after_passages and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, err


@pytest.mark.slow
def test_killed_and_cancelled_builds_resume_to_the_clean_result(tmp_path, tiny_embedder):
    folder = tmp_path / "docs"
    make_folder(folder)
    expected = clean_build_ids(folder)
    data = tmp_path / "data"
    cmd, env = index_cmd(folder, data, tiny_embedder)

    code, err = start_and_interrupt(cmd, env, data, signal.SIGKILL, after_passages=0)
    assert code == -signal.SIGKILL, err
    after_kill = passage_ids(data)  # the index opens and reads after kill -9
    assert 0 < len(after_kill) < FILES and set(after_kill) <= set(expected)

    # Ctrl-C once vectors are being written: the text is all in (full text first), some vectors too.
    code, err = start_and_interrupt(cmd, env, data, signal.SIGINT, after_passages=0, where="vector IS NOT NULL")
    assert code == 130 and "interrupted: indexing cancelled; run the same command again to resume" in err, err
    assert "Traceback" not in err
    after_cancel = passage_ids(data)
    assert len(after_kill) <= len(after_cancel) <= FILES
    assert 0 < committed_passages(data, "vector IS NOT NULL") < FILES

    resumed = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert passage_ids(data) == expected  # nothing lost, nothing twice
    assert IndexStore.open(data / "index").documents.count_rows() == FILES
    assert committed_passages(data, "vector IS NULL") == 0  # every passage embedded
    assert " 0 updated" in resumed.stdout and f"{len(after_cancel)} unchanged" in resumed.stdout
