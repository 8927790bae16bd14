"""Child-process self-check of a reader model: load it and decode a few tokens.

Run as `python -m models.reader.cpu_check GGUF EXTRA_BUFFERS(0|1) N_GPU_LAYERS`; exit 0 when it works.
A crash here (llama.cpp can segfault on some CPUs) kills only this child: models.reader.llama_load reads
the signal and tells the user in one line.
"""
from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    path, extra, gpu_layers = Path(argv[0]), argv[1] == "1", int(argv[2])
    from models.reader.llama_load import load_llama

    llm = load_llama(path, extra, n_ctx=256, n_batch=64, n_gpu_layers=gpu_layers, n_threads=1,
                     n_threads_batch=1, verbose=False)
    # Prompt evaluation and single-token decodes are separate kernels: exercise both.
    tokens = llm.tokenize(b"The capital of France is", add_bos=True, special=False)
    llm.eval(tokens)
    for _ in range(2):
        llm.eval([tokens[-1]])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as exc:  # reported to the parent as the last stderr line
        print(f"{type(exc).__name__}: {exc}".splitlines()[0], file=sys.stderr)
        sys.exit(2)
