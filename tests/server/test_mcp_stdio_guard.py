"""`assistant mcp` over stdio answers every line (issue 65): a request it can parse gets a result
or a JSON-RPC error (a method that is not a string, a lone surrogate, an id that is no id), a
line that is not JSON a parse error (-32700), and the server goes on; an empty collection name
is refused as every other entry point refuses it."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from assistant.mcp_server.stdio_guard import INVALID_REQUEST, PARSE_ERROR, refusal  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = f"""
import sys
sys.path.insert(0, {str(ROOT / "tests")!r})
from models import registry
from helpers.hash_embedder import HashEmbedder
registry.get_embedder = lambda settings: HashEmbedder()
sys.argv = ["assistant", "mcp"]
from assistant.cli.main import run
run()
"""
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def call(n: int, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "search_documents", "arguments": arguments}}


@pytest.mark.parametrize("line, code, request_id", [
    ("this is not json", PARSE_ERROR, None),
    ('{"jsonrpc": "2.0", "id": 2, "method": 123}', INVALID_REQUEST, 2),
    ('{"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"arguments": {"query": "x \\ud800"}}}',
     INVALID_REQUEST, "a"),
    ('{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST, None),
    ("[1, 2]", INVALID_REQUEST, None),
])
def test_a_line_the_sdk_would_drop_gets_an_error(line, code, request_id):
    error = refusal(line)
    assert error["error"]["code"] == code and error["id"] == request_id and error["jsonrpc"] == "2.0"


def test_a_valid_message_reaches_the_sdk():
    assert refusal(json.dumps(INIT)) is None
    assert refusal('{"jsonrpc": "2.0", "method": "notifications/initialized"}') is None


def test_the_stdio_server_answers_every_request_and_goes_on(tmp_path):
    from helpers.hash_embedder import HashEmbedder
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore

    data = tmp_path / "data"
    store = IndexStore.open_or_create(data / "index", HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(store, HashEmbedder(), ROOT / "examples" / "docs")
    store.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
    env.update(ASSISTANT_DATA_DIR=str(data), ASSISTANT_CONFIG=os.devnull, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)

    def send(line) -> dict:
        proc.stdin.write((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 60)  # a bound on a hung server, not a measurement
        assert ready, f"no reply to {line!r}"
        return json.loads(proc.stdout.readline())

    try:
        assert "result" in send(INIT)
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n\n')  # a blank line too
        assert send({"jsonrpc": "2.0", "id": 2, "method": 123})["error"]["code"] == INVALID_REQUEST
        assert send(b"\x00garbage{")["error"]["code"] == PARSE_ERROR
        lone = send(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "search_documents", '
                    b'"arguments": {"query": "holiday \\ud800"}}}')
        assert lone["id"] == 3 and lone["error"]["code"] == INVALID_REQUEST
        empty = send(call(4, {"query": "holiday", "collection": ""}))["result"]
        assert empty["isError"] and "collection name ''" in empty["content"][0]["text"]
        found = send(call(5, {"query": "paid holiday", "k": 2}))["result"]
        assert not found["isError"] and found["content"], found
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read().decode()[-2000:]
