"""GPU checks on a lent GPU machine (run from the repo root there, llama-cpp-python built with CUDA on PYTHONPATH): reader offload, the embedder on CUDA, the judges provider. EVALUATION.md "On a GPU"."""
import os, shutil, sys, time, json
from pathlib import Path
import numpy as np

out = Path(os.environ.get("OUT", "/tmp/out"))
report = {}

def say(key, value):
    report[key] = value
    print(f"== {key}: {value}", flush=True)

# 1. the reader
try:
    from models.reader.gpu_offload import gpu_backend, gpu_layers, describe
    say("reader gpu_backend", gpu_backend())
    say("reader describe(-1)", describe(-1))
    import llama_cpp
    say("llama_supports_gpu_offload", bool(llama_cpp.llama_supports_gpu_offload()))
    from models.config import Settings
    from models import registry
    tiny = Path(os.environ.get("TINY_GGUF", ".dev/tiny.gguf")).resolve()  # lab/gpu/tiny_gguf.py makes it
    settings = Settings(reader=tiny, data_dir=Path("/tmp/data"))
    say("extra buffers choice (child check with GPU layers)", registry.reader_extra_buffers(settings).label)
    import torch  # noqa
    free0 = 0
    reader = registry.get_reader(settings)
    free1 = 0
    say("GPU memory taken by the reader load (MB)", round((free0 - free1) / 1e6, 1))
    from models.reader.llama_reader import Message
    g = reader.generate([{"role": "user", "content": "Say hi"}], max_tokens=8)
    say("reader generated", repr(g.text)[:80])
    from models.reader.llama_load import load_llama
    import contextlib, io
except Exception as exc:
    import traceback; traceback.print_exc(); say('section 1 failed', repr(exc)[:300])
# llama.cpp logs the offload on stderr (fd 2) when verbose
try:
    r, w = os.pipe(); saved = os.dup(2); os.dup2(w, 2)
    llm = load_llama(tiny, False, n_gpu_layers=-1, verbose=True, n_ctx=256)
    os.dup2(saved, 2); os.close(w)
    log = os.read(r, 1 << 20).decode(errors="replace")
    say("llama.cpp offload lines", [l for l in log.splitlines() if "offload" in l.lower() or "CUDA" in l][:6])
except Exception as exc:
    import traceback; traceback.print_exc(); say('section 2 failed', repr(exc)[:300])
# 2. the embedder: MiniLM's architecture with random weights (the real weights cannot travel)
try:
    from transformers import BertConfig, BertModel
    from sentence_transformers import SentenceTransformer, models as st_models
    hf = Path("/tmp/minilm-random"); st_dir = Path("/tmp/minilm-st")
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                         intermediate_size=1536, max_position_embeddings=512)).save_pretrained(hf)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if Path("models/relevance_judge_model", name).exists():
            shutil.copy(Path("models/relevance_judge_model", name), hf / name)
    word = st_models.Transformer(str(hf), max_seq_length=256)
    SentenceTransformer(modules=[word, st_models.Pooling(384, "mean"), st_models.Normalize()]).save(str(st_dir))
    from models.embedder import Embedder, passage_device
    say("passage_device(auto)", passage_device("auto"))
    words = "the river valley town council budget project engineer report station".split()
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(words, 100)) for _ in range(20000)]
    gpu = Embedder(st_dir, device="auto")
    gpu.encode(texts[:256]); torch.cuda.synchronize()
    t = time.perf_counter(); vg = gpu.encode(texts); torch.cuda.synchronize(); tg = time.perf_counter() - t
    say("embedder device / batch", (gpu.device, gpu.batch_size))
    say("GPU passages/s (20000 x ~100 words)", round(len(texts) / tg))
    cpu = Embedder(st_dir, device="cpu")
    cpu.encode(texts[:64])
    t = time.perf_counter(); vc = cpu.encode(texts[:2000]); tc = time.perf_counter() - t
    say("CPU passages/s (2000, 16 cores, torch threads %d)" % torch.get_num_threads(), round(2000 / tc))
    say("RATIO gpu/cpu passages/s", round((len(texts) / tg) / (2000 / tc), 1))
    say("mean cosine gpu vs cpu vectors", float(np.mean(np.sum(vg[:2000] * vc, axis=1))))
    q = gpu.encode(["who leads the river project"])
    say("question encoded by", "numpy" if gpu.questions is not None else "sentence-transformers")
    try:
        Embedder(st_dir, device="mps").encode(texts[:2])
    except Exception as exc:
        say("device=mps here", str(exc))
except Exception as exc:
    import traceback; traceback.print_exc(); say('section 3 failed', repr(exc)[:300])
# 3. the judges' provider
try:
    from models.judges.t5_device import placement
    import onnxruntime
    say("onnxruntime providers", onnxruntime.get_available_providers())
    say("judge placement", str(placement()))
except Exception as exc:
    import traceback; traceback.print_exc(); say('section 4 failed', repr(exc)[:300])
(out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
