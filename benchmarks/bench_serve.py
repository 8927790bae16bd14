"""Warm answers through `assistant serve` against a cold `assistant ask`, same run, with where the
time of each goes.

On a fresh data folder with examples/docs indexed (the bundled reader and embedder; the default
config), measured with the same question and strategy:
- cold: `assistant ask Q --local --json` (a new process: imports, index open, model loads, the
  answer), split by its Answer event's own seconds into "before the answer" and "answering"; and
  the same steps once more in a fresh interpreter with a timer on each (imports, index open, each
  model's load with its library's import, the first token),
- warm: `assistant ask Q --json` with `assistant serve` running (a new CLI process; the server's
  models are loaded), split the same way: the CLI's start, the HTTP round trip and the server's
  queue and context, then the answering,
- import: `assistant ask --help` (the interpreter and the CLI's imports alone),
- first token: the first streamed content of /v1/chat/completions, and its whole answer.
Each way asks the same different questions once (never one right after itself).
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

from bench_support import machine_line

ROOT = Path(__file__).resolve().parent.parent
# Different questions, the same ones cold and warm: one question asked again would find its whole
# prompt in the server reader's prefix cache, which flatters the warm ask (first token 45 -> 8 s).
QUESTIONS = ("How many days of leave do new employees get?", "Who leads Project Heron?",
             "When did Mira Okafor join?", "What does the Harbor Clinic do?", "Where was Heron-1 launched?")
WARM_UP = "Which office is open on Saturdays?"  # the server's first question: waits for its preload
QUESTION = QUESTIONS[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(env: dict, *args: str) -> tuple[float, str]:
    """(seconds, stdout) of `assistant ARGS` in a new process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "assistant", *args], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"assistant {' '.join(args)} failed: {done.stderr.strip()[-400:]}")
    return time.perf_counter() - started, done.stdout


def answered(env: dict, *args: str) -> tuple[float, float]:
    """(whole seconds, the answer's own seconds) of `assistant ask ... --json`."""
    took, out = timed(env, *args, "--json")
    answer = json.loads(out.strip().splitlines()[-1])
    return took, float(answer["seconds"])


def first_token(url: str, strategy: str, question: str) -> tuple[float, float]:
    import httpx

    body = {"model": strategy, "stream": True, "messages": [{"role": "user", "content": question}]}
    started, first = time.perf_counter(), None
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=None) as reply:
        for line in reply.iter_lines():
            if first is None and line.startswith("data: {"):
                delta = json.loads(line[6:])["choices"][0]["delta"]
                if delta.get("content"):
                    first = time.perf_counter() - started
    return first or float("nan"), time.perf_counter() - started


def cold_parts(strategy: str) -> None:
    """In a fresh interpreter: the steps of `ask --local`, each timed; one JSON object printed."""
    started = time.perf_counter()
    parts: dict[str, float] = {}

    def timer(owner, name: str, label: str) -> None:
        original = getattr(owner, name)

        def timed_call(*args, **kwargs):
            at = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                parts[label] = parts.get(label, 0.0) + time.perf_counter() - at

        setattr(owner, name, timed_call)

    import assistant.cli.main  # noqa: F401  (the CLI's own imports, as `ask` pays them)
    from assistant import service
    from models import registry
    from models.config import load_settings
    parts["imports"] = time.perf_counter() - started

    from index_builder import store

    open_store = store.IndexStore.open.__func__
    at = {}

    def opened(cls, *args, **kwargs):
        at["open"] = time.perf_counter()
        try:
            return open_store(cls, *args, **kwargs)
        finally:
            parts["index open (LanceDB import too)"] = time.perf_counter() - at["open"]

    store.IndexStore.open = classmethod(opened)
    for name, label in (("get_embedder", "embedder"), ("get_relevance_judge", "relevance judge"),
                        ("get_reader", "reader"), ("get_judge", "judge")):
        timer(registry, name, f"{label} load")
    settings = load_settings()
    at_prepare = time.perf_counter()
    context = service.prepare(settings, strategy)
    parts["context (all loads)"] = time.perf_counter() - at_prepare
    at_answer, first = time.perf_counter(), None
    for event in service.ask(QUESTION, strategy, settings, context_factory=lambda *_: context):
        if first is None and type(event).__name__ == "Token":
            first = time.perf_counter() - at_answer
    parts["first token"] = first or float("nan")
    parts["answering"] = time.perf_counter() - at_answer
    parts["total"] = time.perf_counter() - started
    print(json.dumps(parts))


def wait_for(url: str, server: subprocess.Popen) -> None:
    import httpx

    for _ in range(1200):
        try:
            httpx.get(url + "/health", timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            if server.poll() is not None:
                raise SystemExit(f"the server stopped: {server.stderr.read()[-400:]}")
            time.sleep(0.1)
    raise SystemExit("the server did not answer /health in 2 minutes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="rag")
    parser.add_argument("--repeats", type=int, default=3, choices=range(2, len(QUESTIONS) + 1),
                        help="questions asked each way")
    parser.add_argument("--cold-parts", action="store_true", help=argparse.SUPPRESS)  # the child's run
    args = parser.parse_args()
    if args.cold_parts:
        return cold_parts(args.strategy)
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "ASSISTANT_DATA_DIR": data, "ASSISTANT_CONFIG": os.devnull, "PYTHONPATH": str(ROOT)}
        timed(env, "index", "add", str(ROOT / "examples" / "docs"))
        asked = QUESTIONS[:args.repeats]
        # the reader's CPU self-check runs once per data folder, not at each start: done before
        answered(env, "ask", WARM_UP, "-s", args.strategy, "--local")
        imports = [timed(env, "ask", "--help")[0] for _ in asked]
        cold = [answered(env, "ask", question, "-s", args.strategy, "--local") for question in asked]
        child = subprocess.run([sys.executable, __file__, "--cold-parts", "--strategy", args.strategy], env=env,
                               capture_output=True, text=True)
        if child.returncode:
            raise SystemExit(f"the cold-parts run failed: {child.stderr.strip()[-400:]}")
        parts = json.loads(child.stdout.strip().splitlines()[-1])
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "assistant", "serve", "--port", str(port)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(url, server)
            first_token(url, args.strategy, WARM_UP)  # waits for the preload: the server is warm after it
            warm = [answered(env, "ask", question, "-s", args.strategy) for question in asked]
            # in another order, so that no question follows itself
            streamed = [first_token(url, args.strategy, question) for question in asked[1:] + asked[:1]]
        finally:
            server.terminate()
            server.wait(30)
    report(args, imports, cold, warm, streamed, parts)


def report(args, imports, cold, warm, streamed, parts) -> None:
    med = statistics.median
    cold_total, cold_answer = med(c[0] for c in cold), med(c[1] for c in cold)
    warm_total, warm_answer = med(w[0] for w in warm), med(w[1] for w in warm)
    print(machine_line())
    print(f"strategy {args.strategy}, median of {args.repeats} different questions (each asked once each way)")
    print(f"cold ask (--local)           {cold_total:7.2f} s = before the answer {cold_total - cold_answer:.2f} s "
          f"+ answering {cold_answer:.2f} s")
    steps = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in parts.items()
                      if name not in ("total", "answering", "first token"))
    print(f"  its steps, once more in a fresh interpreter: {steps}; first token {parts['first token']:.2f} s, "
          f"answering {parts['answering']:.2f} s, total {parts['total']:.2f} s")
    print(f"warm ask (through serve)     {warm_total:7.2f} s = CLI, HTTP and queue {warm_total - warm_answer:.2f} s "
          f"+ answering {warm_answer:.2f} s")
    print(f"  the CLI's start alone (ask --help): {med(imports):.2f} s")
    print(f"first token (streamed, HTTP) {med(s[0] for s in streamed):7.2f} s  "
          f"(whole answer {med(s[1] for s in streamed):.2f} s)")
    print(f"RATIO cold/warm {cold_total / warm_total:.1f}x   cold/first-token "
          f"{cold_total / med(s[0] for s in streamed):.1f}x   before the answer: cold/warm "
          f"{(cold_total - cold_answer) / max(warm_total - warm_answer, 1e-9):.1f}x")


if __name__ == "__main__":
    main()
