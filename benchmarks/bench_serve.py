"""Warm answers through `assistant serve` against a cold `assistant ask`, same run.

On a fresh data folder with examples/docs indexed (the bundled reader and embedder; the default
config), measured with the same question and strategy:
- import: `assistant ask --help` (the CLI's imports alone: what every ask pays before any model),
- cold: `assistant ask Q --local` (a new process: imports, model and index loads, the answer),
- warm: `assistant ask Q` with `assistant serve` running (a new CLI process; the server's models
  are loaded, so it pays the imports and the answer only),
- first token: the first streamed content of /v1/chat/completions, and its whole answer.
RATIO cold / warm (the target: >= 5x with the bundled reader).

Run: .venv/bin/python benchmarks/bench_serve.py [--strategy rag] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from bench_support import machine_line

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "How many days of leave do new employees get?"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(env: dict, *args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"assistant {' '.join(args)} failed: {done.stderr.strip()[-400:]}")
    return time.perf_counter() - started


def first_token(url: str, strategy: str) -> tuple[float, float]:
    body = {"model": strategy, "stream": True, "messages": [{"role": "user", "content": QUESTION}]}
    started, first = time.perf_counter(), None
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=None) as reply:
        for line in reply.iter_lines():
            if first is None and line.startswith("data: {"):
                delta = json.loads(line[6:])["choices"][0]["delta"]
                if delta.get("content"):
                    first = time.perf_counter() - started
    return first or float("nan"), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="rag")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "ASSISTANT_DATA_DIR": data, "ASSISTANT_CONFIG": os.devnull, "PYTHONPATH": str(ROOT)}
        timed(env, "index", "add", str(ROOT / "examples" / "docs"))
        ask = ("ask", QUESTION, "-s", args.strategy)
        imports = [timed(env, "ask", "--help") for _ in range(args.repeats)]
        cold = [timed(env, *ask, "--local") for _ in range(args.repeats)]
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "assistant", "serve", "--port", str(port)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    httpx.get(url + "/health", timeout=1).raise_for_status()
                    break
                except httpx.HTTPError:
                    if server.poll() is not None:
                        raise SystemExit(f"the server stopped: {server.stderr.read()[-400:]}")
                    time.sleep(0.1)
            first_token(url, args.strategy)  # waits for the preload: the server is warm after it
            warm = [timed(env, *ask) for _ in range(args.repeats)]
            streamed = [first_token(url, args.strategy) for _ in range(args.repeats)]
        finally:
            server.terminate()
            server.wait(30)
    med = statistics.median
    print(machine_line())
    print(f"strategy {args.strategy}, question {QUESTION!r}, median of {args.repeats}")
    print(f"imports (ask --help)         {med(imports):7.2f} s")
    print(f"cold ask (--local)           {med(cold):7.2f} s")
    print(f"warm ask (through serve)     {med(warm):7.2f} s")
    print(f"first token (streamed, HTTP) {med(s[0] for s in streamed):7.2f} s  "
          f"(whole answer {med(s[1] for s in streamed):.2f} s)")
    print(f"RATIO cold/warm {med(cold) / med(warm):.1f}x   cold/first-token {med(cold) / med(s[0] for s in streamed):.1f}x")


if __name__ == "__main__":
    main()
