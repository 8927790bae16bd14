"""Sweep group `damage` (issue 65): a damaged file costs only what is damaged. A thread with 4 KB
of random bytes after its intact turns is listed, exported and continued with every intact turn,
the bytes kept beside it; an index whose metadata file is lost after a kill between `index add`'s
phases still knows its waiting passages after `index repair`, and the next `index add` embeds
them (passages compared with a clean build); a garbled metadata file is mended by `index repair`;
`assistant mcp` over stdio answers every line and goes on; a word only one file holds finds that
file first, and a search of punctuation alone is the empty-search error."""
from __future__ import annotations

import json
import random
import select
import time
from pathlib import Path

from world import Result, Sweep, compare, passage_rows

GROUP = "damage"
INTACT = 17
NOTES = 30
WORDS = "river stone lantern copper meadow falcon harbor violet engine summit orchard glacier".split()


def thread_with_garbage(sweep: Sweep) -> None:
    from assistant.conversation.threads import ThreadStore, Turn

    store = ThreadStore(sweep.root / "data")
    for i in range(INTACT):
        store.append("garbled", Turn(f"garbled question {i}?", f"answer {i}"))
    garbage = random.Random(sweep.options.seed).randbytes(4096)
    folder = sweep.root / "data" / "threads"
    with open(folder / "garbled.jsonl", "ab") as fh:
        fh.write(garbage)
    kept = folder / "garbled.jsonl.damaged"

    def listed(result: Result):
        line = next((line for line in result.out.splitlines() if line.startswith("garbled  ")), "")
        return None if line.startswith(f"garbled  ({INTACT} turns; ") else f"listed as {line!r}"

    sweep.case(GROUP, "list a thread with 4 KB of garbage after 17 turns", "chat", "--list", check=listed)
    def lines(data: bytes) -> list[bytes]:
        return sorted(line for line in data.split(b"\n") if line.strip())

    sweep.case(GROUP, "its damaged lines kept beside it, every byte", "chat", "--list",
               check=lambda r: None if kept.is_file() and lines(kept.read_bytes()) == lines(garbage)
               else "the garbage is not kept whole beside the thread")
    sweep.case(GROUP, "export it", "chat", "garbled", "--export", "-",
               check=lambda r: None if r.out.count("\n## ") == INTACT else f"exported {r.out.count(chr(10) + '## ')} turns")
    sweep.case(GROUP, "continue it", "ask", "And then?", "-s", "direct", "--thread", "garbled", timeout=300,
               check=lambda r: None if len(store.load("garbled", whole=True).turns) == INTACT + 1
               else "the new turn is not the 18th")


def _notes(sweep: Sweep) -> Path:
    rng = random.Random(sweep.options.seed)
    folder = sweep.path("damage-notes")
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(NOTES):
        (folder / f"note{n:02d}.txt").write_text(f"Note {n}. " + " ".join(rng.choice(WORDS) for _ in range(60)))
    (folder / "holder.txt").write_text("The quokkafrost gauge sits on the roof. " + " ".join(WORDS))
    return folder


def lost_metadata_after_a_kill(sweep: Sweep, folder: Path) -> None:
    clean = sweep.path("damage-clean")
    if sweep.run("index", "add", folder, "--index", clean, timeout=600).rc != 0:
        sweep.note("damage: the clean build failed; index cases skipped")
        return
    index, pause = sweep.path("damage-index"), sweep.path("damage-pause")
    started = time.monotonic()
    proc = sweep.popen("index", "add", folder, "--index", index, env={"ASSISTANT_INDEX_PAUSE_FILE": pause})
    while not pause.exists() and proc.poll() is None and time.monotonic() - started < 300:
        time.sleep(0.05)
    proc.kill()  # kill -9 between the phases: every passage written as text, none with its vector
    sweep.finish(proc, ["index", "add", folder], started, timeout=60)
    pause.unlink(missing_ok=True)
    (index / "assistant-index.json").unlink()
    waiting = f"waiting:         {NOTES + 1} passages wait"
    sweep.case(GROUP, "status of an index that lost its metadata file", "index", "status", "--index", index,
               expect="error", check=lambda r: None if "index repair" in r.err else "no repair offered")
    sweep.case(GROUP, "repair it", "index", "repair", "--index", index, timeout=300,
               check=lambda r: None if "wait for their vectors" in r.out else f"repair said {r.out.strip()!r}")
    sweep.case(GROUP, "its waiting passages after the repair", "index", "status", "--index", index,
               check=lambda r: None if waiting in r.out else "the waiting passages are forgotten")
    sweep.case(GROUP, "the next index add embeds them", "index", "add", folder, "--index", index, timeout=600,
               check=lambda r: None if f"({NOTES + 1} embedded)" in r.out else f"embedded: {r.out[-200:]!r}")
    sweep.tally.tried += 1
    sweep.tally.per_group[GROUP] += 1
    compare(sweep, GROUP, "kill, lost metadata, repair, add", passage_rows(index), passage_rows(clean))
    (index / "assistant-index.json").write_bytes(b'{"embedding_model": \xff garbled')
    sweep.case(GROUP, "search a garbled metadata file", "search", "river", "--index", index, expect="error",
               check=lambda r: None if "index repair" in r.err else "no repair offered")
    sweep.case(GROUP, "repair a garbled metadata file", "index", "repair", "--index", index, timeout=300,
               check=lambda r: None if (index / "assistant-index.json.damaged").is_file() else "the garbled file is gone")
    sweep.case(GROUP, "search after the repair", "search", "quokkafrost", "-k", "1", "--index", index,
               check=lambda r: None if "holder.txt" in r.out else f"the holder is not first: {r.out[:200]!r}")
    for query in ("*", '"'):
        sweep.case(GROUP, f"search {query!r}", "search", query, "--index", index, expect="error",
                   check=lambda r: None if "the search is empty" in r.err else "not the empty-search error")


MCP_LINES = {
    "a method that is not a string": (b'{"jsonrpc": "2.0", "id": 2, "method": 123}', -32600),
    "garbage": (b"\x00this is not json{", -32700),
    "a lone surrogate": (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": '
                         b'"search_documents", "arguments": {"query": "river \\ud800"}}}', -32600),
    "an id that is no id": (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600),
    "an empty collection": (b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": '
                            b'"search_documents", "arguments": {"query": "river", "collection": ""}}}', "isError"),
    "a ping after them": (b'{"jsonrpc": "2.0", "id": 5, "method": "ping"}', "result"),
}


def mcp_answers_every_line(sweep: Sweep) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sweep", "version": "1"}}}
    started = time.monotonic()
    proc = sweep.popen("mcp", "--index", sweep.path("damage-index"), stdin=True)

    def send(line: bytes) -> dict | None:
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        return json.loads(proc.stdout.readline()) if ready else None

    send(json.dumps(init).encode())
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    for label, (line, wanted) in MCP_LINES.items():
        reply = send(line)
        sweep.tally.tried += 1
        sweep.tally.per_group[GROUP] += 1
        if reply is None:
            sweep.fail(GROUP, f"mcp over stdio: {label}", "hang", "no reply within 120 s")
            break
        got = reply.get("error", {}).get("code") if "error" in reply else \
            ("isError" if reply.get("result", {}).get("isError") else "result")
        if got != wanted:
            sweep.fail(GROUP, f"mcp over stdio: {label}", "check", f"answered {got}, not {wanted}: {reply}")
    result = sweep.finish(proc, ["mcp"], started, timeout=60)  # closes its stdin: the client goes
    sweep.judge(GROUP, "mcp over stdio ends cleanly", result)


def damage(sweep: Sweep) -> None:
    thread_with_garbage(sweep)
    lost_metadata_after_a_kill(sweep, _notes(sweep))
    mcp_answers_every_line(sweep)


GROUPS = {"damage": damage}
