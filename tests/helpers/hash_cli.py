"""`assistant ARGS...` in a child process with a hash embedder (slowed by EMBED_DELAY seconds a
batch of BATCH_PASSAGES passages), so that a test can kill -9 a real `index add` part-way and run
the command it is told to run next, exactly as printed, without loading a model."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = f"""
import os, sys, time
sys.path[:0] = [{str(REPO)!r}, {str(REPO / "tests")!r}]
from helpers.hash_embedder import HashEmbedder
from models import registry
from index_builder import pipeline

class SlowHashEmbedder(HashEmbedder):
    def encode(self, texts):
        time.sleep(float(os.environ.get("EMBED_DELAY", "0")))
        return super().encode(texts)

registry.get_embedder = lambda settings: SlowHashEmbedder()
pipeline.EMBED_BATCH_PASSAGES = int(os.environ.get("BATCH_PASSAGES", "256"))
sys.argv = ["assistant", *sys.argv[1:]]
from assistant.cli.main import run
run()
"""


def environment(data: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
    return dict(env, ASSISTANT_DATA_DIR=str(data), ASSISTANT_CONFIG=os.devnull, HF_HUB_OFFLINE="1", **extra)


def command(folder: Path, *args: str) -> list[str]:
    """The child's argv for `assistant ARGS...` (the launcher written into `folder` once)."""
    launcher = folder / "launch_hash_cli.py"
    if not launcher.exists():
        launcher.write_text(LAUNCHER, encoding="utf-8")
    return [sys.executable, str(launcher), *args]


def as_printed(folder: Path, line: str) -> list[str]:
    """A command the CLI printed (`assistant index add ...`), split as a shell would, to run here."""
    words = shlex.split(line)
    assert words[0] == "assistant", line
    return command(folder, *words[1:])


def start(folder: Path, env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(command(folder, *args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def run(folder: Path, env: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(command(folder, *args), env=env, capture_output=True, text=True, timeout=timeout)
