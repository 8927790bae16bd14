"""Ten clients at once against `assistant serve`, the queue's bound, the server's memory, and
`assistant search` against `ask`, same run.

On a fresh data folder with examples/docs indexed (the bundled reader and embedder, the default
config):
- 10 concurrent clients on 127.0.0.1 (half streamed, half not; different questions): each one's
  time to its first token (streamed; a non-streamed one gets all at its end) and to its end;
  the requests past the queue's size (--queue-size 10) sent while the ten wait: their status and
  Retry-After; the server's resident memory (RSS) before the clients and after them;
- `assistant search Q` (a new process: no reader loads) against `assistant ask Q --local` before
  its answer (imports, index open, every model load; its Answer event's own seconds taken off)
  and in all; with the server running, `assistant search Q` again (it goes through the server:
  no LanceDB import), and POST /v1/search against a streamed question's first token.
RATIO lines: ask before its answer / search, and the warm first token / the warm search.

Run: .venv/bin/python benchmarks/bench_serve_clients.py [--strategy rag] [--clients 10]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_serve import QUESTIONS, WARM_UP, answered, first_token, free_port, timed, wait_for
from bench_support import machine_line

ROOT = Path(__file__).resolve().parent.parent
MORE = ("Who is the facilities manager?", "What does every new engineer receive?", "Where is the workshop?",
        "How much flour goes in the shortbread?", "When is the Dundee office open?")
SEARCHES = ("paid holiday days", "Project Heron leader", "shortbread recipe flour")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_client(url: str, strategy: str, question: str, stream: bool, out: dict) -> None:
    import httpx

    started = time.perf_counter()
    if stream:
        first, end = first_token(url, strategy, question)
        out.update(first=first, end=end, status=200)
        return
    reply = httpx.post(url + "/v1/chat/completions", timeout=None,
                       json={"model": strategy, "messages": [{"role": "user", "content": question}]})
    end = time.perf_counter() - started
    out.update(first=end, end=end, status=reply.status_code)


def beyond_the_queue(url: str, strategy: str, n: int) -> list[tuple[int, str]]:
    import httpx

    replies = [httpx.post(url + "/v1/chat/completions", timeout=30,
                          json={"model": strategy, "messages": [{"role": "user", "content": "One more?"}]})
               for _ in range(n)]
    return [(r.status_code, r.headers.get("retry-after", "-")) for r in replies]


def clients(url: str, strategy: str, count: int, size: int) -> tuple[list[dict], list[tuple[int, str]]]:
    import httpx

    questions = (QUESTIONS + MORE) * (count // 10 + 1)
    results = [{} for _ in range(count)]
    threads = [threading.Thread(target=one_client, args=(url, strategy, questions[i], i % 2 == 0, results[i]))
               for i in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while httpx.get(url + "/health").json()["waiting"] < min(count, size) and time.monotonic() < deadline:
        time.sleep(0.05)
    refused = beyond_the_queue(url, strategy, 2)
    for thread in threads:
        thread.join()
    return results, refused


def searched(url: str, query: str) -> float:
    import httpx

    started = time.perf_counter()
    httpx.post(url + "/v1/search", json={"query": query, "k": 5}, timeout=60).raise_for_status()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="rag")
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--queue-size", type=int, default=10)
    args = parser.parse_args()
    med = statistics.median
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "ASSISTANT_DATA_DIR": data, "ASSISTANT_CONFIG": os.devnull, "PYTHONPATH": str(ROOT)}
        timed(env, "index", "add", str(ROOT / "examples" / "docs"))
        answered(env, "ask", WARM_UP, "-s", args.strategy, "--local")  # the reader's CPU self-check, once
        search_cli = [timed(env, "search", q, "-k", "5")[0] for q in SEARCHES]
        asks = [answered(env, "ask", q, "-s", args.strategy, "--local") for q in QUESTIONS[:len(SEARCHES)]]
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "assistant", "serve", "--port", str(port),
                                   "--queue-size", str(args.queue_size)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(url, server)
            first_token(url, args.strategy, WARM_UP)  # waits for the preload
            warm_search = [searched(url, q) for q in SEARCHES]
            search_via_server = [timed(env, "search", q, "-k", "5")[0] for q in SEARCHES]  # finds server.json
            warm_first = [first_token(url, args.strategy, q)[0] for q in MORE[:len(SEARCHES)]]
            before = rss_mb(server.pid)
            started = time.perf_counter()
            results, refused = clients(url, args.strategy, args.clients, args.queue_size)
            wall = time.perf_counter() - started
            after = rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(30)
    streamed = [r for i, r in enumerate(results) if i % 2 == 0]
    plain = [r for i, r in enumerate(results) if i % 2 == 1]
    print(machine_line())
    print(f"strategy {args.strategy}; {args.clients} clients at once ({len(streamed)} streamed, {len(plain)} not), "
          f"queue size {args.queue_size}; all done in {wall:.1f} s; statuses {sorted(r['status'] for r in results)}")
    for name, group in (("streamed", streamed), ("not streamed", plain)):
        firsts, ends = [r["first"] for r in group], [r["end"] for r in group]
        print(f"  {name:13s} first token min/median/max {min(firsts):6.1f} {med(firsts):6.1f} {max(firsts):6.1f} s;"
              f" end {min(ends):6.1f} {med(ends):6.1f} {max(ends):6.1f} s")
    print(f"  past the queue (sent while {args.queue_size} waited): " +
          ", ".join(f"{status} (Retry-After {after_s})" for status, after_s in refused))
    print(f"server RSS before the clients {before:.0f} MB, after {after:.0f} MB ({after - before:+.0f} MB)")
    ask_total, ask_answer = med(a[0] for a in asks), med(a[1] for a in asks)
    print(f"search (CLI, new process) {med(search_cli):.2f} s; ask --local {ask_total:.2f} s, of which before its "
          f"answer {ask_total - ask_answer:.2f} s")
    print(f"warm: POST /v1/search {1000 * med(warm_search):.0f} ms; `assistant search` through the server "
          f"{med(search_via_server):.2f} s; streamed first token {med(warm_first):.2f} s")
    print(f"RATIO ask-before-answer/search {(ask_total - ask_answer) / med(search_cli):.1f}x   "
          f"ask-before-answer/search-through-serve {(ask_total - ask_answer) / med(search_via_server):.1f}x   "
          f"ask/search {ask_total / med(search_cli):.1f}x   warm first-token/search "
          f"{med(warm_first) / med(warm_search):.0f}x   RSS after/before {after / before:.2f}")
    print(json.dumps({"clients": results, "refused": refused}), file=sys.stderr)


if __name__ == "__main__":
    main()
