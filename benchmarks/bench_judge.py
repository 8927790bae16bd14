"""Relevance verdicts per second for k=10 passages: the ONNX T5 judge batched vs one passage
per call, fp32 vs int8, and against the prompted-reader judge (bundled SmolLM2-135M).

All judges see the same HotpotQA questions with their 10 paragraphs (~100 words each), taking
turns question by question so that a noisy machine slows them alike. The T5 is randomly
initialised (no download): speed depends on its shapes, not on what it learned. Default:
flan-t5-base dimensions (d_model 768, 12+12 layers, gated-GELU, vocab 32128); --small:
t5-small-like (d_model 512, 6+6 layers, 8 heads). Also reports export and int8 times and sizes.

Run: .venv/bin/python benchmarks/bench_judge.py [--small] [--questions N] [--threads N]
(--threads 1 on a machine shared with other work: spin-waiting thread pools suffer unevenly.)
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.judges import t5_format as fmt  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "hotpotqa" / "hotpotqa_dev_distractor_500.ircot_format.jsonl"
K = 10
SHAPES = {  # flan-t5-base and t5-small (with flan's gated-GELU feed-forward)
    "base": dict(d_model=768, d_ff=2048, d_kv=64, num_heads=12, num_layers=12, num_decoder_layers=12),
    "small": dict(d_model=512, d_ff=1024, d_kv=64, num_heads=8, num_layers=6, num_decoder_layers=6),
}
VOCAB = 32128


def load_questions(path: Path, n: int) -> list[tuple[str, list[str]]]:
    from index_builder.datasets import load_dataset

    examples = [e for e in load_dataset(path, 4 * n + 400) if len(e.paragraphs) >= K]
    if len(examples) < n:
        raise SystemExit(f"{path} has fewer than {n} questions with {K} paragraphs")
    corpus = [(e.question, [f"{p.title}: {p.text}" for p in e.paragraphs[:K]]) for e in examples]
    return corpus[:n], corpus  # measured questions; the rest trains the tokenizer


def build_random_t5(folder: Path, shape: str, texts: list[str]) -> Path:
    """A random T5 with `shape`, and a Unigram tokenizer trained on `texts` (so that passages
    split into a realistic number of tokens)."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    from lab.fixtures.t5_tiny import unigram_t5_tokenizer

    tokenizer = unigram_t5_tokenizer(texts, vocab_size=16000)
    torch.manual_seed(0)
    config = T5Config(vocab_size=VOCAB, feed_forward_proj="gated-gelu", tie_word_embeddings=False,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1, **SHAPES[shape])
    T5ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def timed(label: str, fn):
    started = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - started
    print(f"  {label}: {seconds:.1f} s", flush=True)
    return result, seconds


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def measure(modes: dict, questions) -> dict[str, float]:
    """Verdicts per second of each mode; modes take turns on each question (one warm-up first)."""
    seconds = {name: 0.0 for name in modes}
    for name, run in modes.items():
        run(*questions[0])  # warm-up: first-call allocations and caches
    for i, (question, passages) in enumerate(questions, 1):
        for name, run in modes.items():
            started = time.perf_counter()
            verdicts = run(question, passages)
            seconds[name] += time.perf_counter() - started
            assert len(verdicts) == len(passages)
        print(f"  question {i}/{len(questions)}", flush=True)
    return {name: len(questions) * K / s for name, s in seconds.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="t5-small-like shapes instead of flan-t5-base")
    parser.add_argument("--questions", type=int, default=2, help="questions (of k=10 passages) measured")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="threads of every judge")
    parser.add_argument("--data", type=Path, default=DATA, help="HotpotQA-style file with 10 paragraphs each")
    args = parser.parse_args()
    shape = "small" if args.small else "base"

    from research.judge_training.export import export_judge, quantize_judge
    from models.config import Settings
    from models.judges.prompted import ReaderJudge
    from models.judges.t5_judge import T5Judge
    from models.registry import get_reader

    questions, corpus = load_questions(args.data, args.questions)
    print(f"T5 shape: {shape} {SHAPES[shape]}, vocab {VOCAB}, random weights; "
          f"{args.threads} of {os.cpu_count()} cpu threads")
    with tempfile.TemporaryDirectory(prefix="bench-judge-") as tmp:
        tmp = Path(tmp)
        texts = [q for q, _ in corpus] + [p for _, ps in corpus for p in ps] + [fmt.relevance_input("q", "p")]
        checkpoint, _ = timed("random T5 + tokenizer", lambda: build_random_t5(tmp / "ckpt", shape, texts))
        fp32, export_s = timed("ONNX export (fp32)", lambda: export_judge(checkpoint, tmp / "fp32"))
        int8, quantize_s = timed("int8 quantization", lambda: quantize_judge(fp32, tmp / "int8"))
        print(f"  checkpoint {size_mb(checkpoint):.0f} MB, fp32 judge {size_mb(fp32):.0f} MB, "
              f"int8 judge {size_mb(int8):.0f} MB")

        t5 = {"fp32": T5Judge(fp32, n_threads=args.threads), "int8": T5Judge(int8, n_threads=args.threads)}
        lengths = [len(t5["fp32"].tokenizer(fmt.relevance_input(q, p)).input_ids) for q, ps in questions for p in ps]
        print(f"  relevance inputs: {statistics.mean(lengths):.0f} tokens on average (max {max(lengths)})")
        reader_judge = ReaderJudge(get_reader(Settings(n_threads=args.threads)))
        modes = {}
        for precision, judge in t5.items():
            modes[f"t5 {precision} batched"] = judge.relevant
            modes[f"t5 {precision} one at a time"] = (
                lambda q, ps, judge=judge: [v for p in ps for v in judge.relevant(q, [p])])
        modes[f"reader judge ({reader_judge.reader.name})"] = reader_judge.relevant
        rates = measure(modes, questions)

    print(f"\nrelevance verdicts per second (k={K}, {len(questions)} questions):")
    for name, rate in rates.items():
        print(f"  {name:40} {rate:7.2f}")
    reader_rate = rates[f"reader judge ({reader_judge.reader.name})"]
    print("\nRATIO batched / one at a time, fp32:     "
          f"{rates['t5 fp32 batched'] / rates['t5 fp32 one at a time']:.2f}")
    print("RATIO batched / one at a time, int8:     "
          f"{rates['t5 int8 batched'] / rates['t5 int8 one at a time']:.2f}")
    print(f"RATIO int8 / fp32, batched:              {rates['t5 int8 batched'] / rates['t5 fp32 batched']:.2f}")
    print(f"RATIO t5 int8 batched / reader judge:    {rates['t5 int8 batched'] / reader_rate:.2f}")
    print(f"RATIO t5 fp32 batched / reader judge:    {rates['t5 fp32 batched'] / reader_rate:.2f}")
    print(f"(export {export_s:.0f} s, int8 quantization {quantize_s:.0f} s for the {shape} shape)")


if __name__ == "__main__":
    main()
