"""Reader speed: the project's reader wrapper against raw llama-cpp-python, with llama.cpp's extra
weight buffers on and off, in the same run.

Each measurement runs in its own child process, so a setting that crashes on this CPU (extra
buffers on a CPU with AMX segfault: models/llama_load.py) is reported as crashed instead of
ending the benchmark. Rounds alternate between the configurations so a noisy machine slows them
alike; the median of the rounds is printed with its ratio to the baseline (raw llama-cpp-python,
extra buffers off, the setting that runs everywhere).

Prompt speed: a ~400-token prompt evaluated from an empty cache. Generation speed: 32 greedy
tokens after it.

Run: .venv/bin/python benchmarks/bench_reader.py [--reader GGUF] [--rounds N] [--threads N] [--small]
(--small: SmolLM2, 1 round, fewer tokens; default reader: SmolLM2 too, pass Qwen for real numbers.)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROMPT = ("The history of the city goes back many centuries, and its people have told the story in "
          "many ways. ") * 24  # ~400 tokens with common tokenizers


def measure(kind: str, path: str, extra: bool, threads: int, gen_tokens: int, prompt_repeat: int) -> dict:
    """Runs in the child: tokens/s for prompt evaluation and for greedy generation."""
    from models.reader.llama_load import load_llama

    prompt_text = PROMPT * prompt_repeat
    if kind == "raw":
        llm = load_llama(Path(path), extra, n_ctx=2048, n_threads=threads, n_threads_batch=threads,
                         verbose=False)
        tokens = llm.tokenize(prompt_text.encode(), add_bos=True, special=False)
        start = time.perf_counter()
        llm.eval(tokens)
        prompt_s = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(gen_tokens):
            token = llm.sample(temp=0.0)
            llm.eval([token])
        gen_s = time.perf_counter() - start
        return {"prompt_tok_s": len(tokens) / prompt_s, "gen_tok_s": gen_tokens / gen_s}
    from models.reader.llama_reader import Reader

    reader = Reader(Path(path), n_ctx=2048, n_threads=threads, extra_buffers=extra, prefix_cache=False)
    messages = [{"role": "user", "content": prompt_text}]
    tokens = reader.prompt_tokens(messages)
    start = time.perf_counter()
    reader._eval_prompt(tokens)
    prompt_s = time.perf_counter() - start
    start = time.perf_counter()
    generation = reader.generate(messages, max_tokens=gen_tokens)
    total = time.perf_counter() - start
    made = max(1, len(generation.token_logprobs))
    # generate() evaluates the prompt again (no prefix cache): take that time off.
    gen_s = max(1e-6, total - prompt_s)
    return {"prompt_tok_s": len(tokens) / prompt_s, "gen_tok_s": made / gen_s}


def run_child(kind: str, path: str, extra: bool, threads: int, gen_tokens: int, repeat: int) -> dict | str:
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'benchmarks')!r});"
            f"from bench_reader import measure; print(json.dumps(measure({kind!r}, {path!r}, {extra}, "
            f"{threads}, {gen_tokens}, {repeat})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode < 0:
        return f"crashed (signal {-done.returncode})"
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    from models.reader.llama_load import cpu_has_amx, cpu_name
    from models.registry import bundled_reader_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reader", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    path = str(args.reader or bundled_reader_path())
    rounds, gen_tokens, repeat = (1, 8, 1) if args.small else (args.rounds, 32, 1)
    configs = [(kind, extra) for extra in (False, True) for kind in ("raw", "wrapper")]
    results: dict = {c: [] for c in configs}
    for _ in range(rounds):
        for config in configs:
            results[config].append(run_child(config[0], path, config[1], args.threads, gen_tokens, repeat))
    print(f"reader {Path(path).name}; CPU {cpu_name()} (AMX: {'yes' if cpu_has_amx() else 'no'}); "
          f"threads {args.threads}; {rounds} round(s), median")
    base = _medians(results[("raw", False)])
    print(f"{'implementation':12} {'extra buffers':14} {'prompt tok/s':>13} {'ratio':>6} {'gen tok/s':>10} {'ratio':>6}")
    for kind, extra in configs:
        row = _medians(results[(kind, extra)])
        label = f"{kind:12} {'on' if extra else 'off':14}"
        if isinstance(row, str):
            print(f"{label} {row}")
            continue
        ratio = lambda key: f"{row[key] / base[key]:.2f}" if isinstance(base, dict) else "-"
        print(f"{label} {row['prompt_tok_s']:13.1f} {ratio('prompt_tok_s'):>6} {row['gen_tok_s']:10.1f} "
              f"{ratio('gen_tok_s'):>6}")
    print("ratio: against raw llama-cpp-python with extra buffers off (the setting that runs on every CPU)")


def _medians(runs: list) -> dict | str:
    good = [r for r in runs if isinstance(r, dict)]
    if not good:
        return runs[0]
    return {key: statistics.median(r[key] for r in good) for key in good[0]}


if __name__ == "__main__":
    main()
