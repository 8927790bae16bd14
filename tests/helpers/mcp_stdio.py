"""`assistant mcp` over stdio for tests, through the official `mcp` client: the command launched
with the registry's models replaced by fakes (the reader given as a Python expression over
tests/helpers), an environment of its own data folder, and steps run against a session."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = """
import sys
sys.path.insert(0, {tests!r})
from models import registry
from helpers.fakes import FakeJudge, FakeReader
from helpers.hash_embedder import HashEmbedder
from helpers.serve_fakes import CountingReader

def load_reader():
    print("reader loaded", file=sys.stderr, flush=True)
    return {reader}

registry.get_reader = lambda settings: registry.shared(("reader", "fake"), load_reader)
registry.get_judge = lambda settings: FakeJudge()
registry.get_embedder = lambda settings: HashEmbedder()
sys.argv = ["assistant", "mcp"]
from assistant.cli.main import run
run()
"""
HOLIDAY_READER = 'FakeReader(lambda prompt: "Staff have 30 days of paid holiday a year.")'


def environment(data: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
    env.update(ASSISTANT_DATA_DIR=str(data), ASSISTANT_CONFIG=os.devnull, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    return env


def fake_params(data: Path, reader: str = HOLIDAY_READER):
    """`assistant mcp` on this data folder with fake models (`reader`: an expression)."""
    from mcp.client.stdio import StdioServerParameters

    script = LAUNCH.format(tests=str(ROOT / "tests"), reader=reader)
    return StdioServerParameters(command=sys.executable, args=["-c", script], env=environment(data))


def session_run(params, steps, errlog):
    """steps(session) run against the server over stdio; its result back."""
    import anyio
    from mcp.client import ClientSession
    from mcp.client.stdio import stdio_client

    async def main():
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await steps(session)

    return anyio.run(main)


def index_examples(data_dir: Path) -> Path:
    """examples/docs indexed with the hash embedder into data_dir's index; data_dir back."""
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore
    from models.config import Settings

    from helpers.hash_embedder import HashEmbedder

    settings = Settings(data_dir=data_dir)
    store = IndexStore.open_or_create(settings.index_path, HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(store, HashEmbedder(), ROOT / "examples" / "docs")
    return settings.data_dir
