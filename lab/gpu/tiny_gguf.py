"""(Run with the gguf package on PYTHONPATH: python lab/gpu/tiny_gguf.py SMOLLM2.gguf OUT.gguf.) A tiny random llama GGUF with SmolLM2's tokenizer and chat template (for a GPU offload check)."""
import sys
import numpy as np
import gguf
from gguf import GGUFReader, GGUFWriter, GGMLQuantizationType

src, dst = sys.argv[1], sys.argv[2]
r = GGUFReader(src)
w = GGUFWriter(dst, "llama")
E, L, H, KV, FF = 32, 4, 2, 1, 64
w.add_name("tiny-random-llama")
w.add_context_length(2048); w.add_embedding_length(E); w.add_block_count(L)
w.add_feed_forward_length(FF); w.add_head_count(H); w.add_head_count_kv(KV)
w.add_layer_norm_rms_eps(1e-5); w.add_rope_freq_base(10000.0); w.add_file_type(1)
nvocab = 0
for field in r.fields.values():
    name = field.name
    if not name.startswith("tokenizer."):
        continue
    t = field.types[0]
    if t == gguf.GGUFValueType.ARRAY:
        sub = field.types[1]
        vals = [field.parts[i] for i in field.data]
        if sub == gguf.GGUFValueType.STRING:
            vals = [bytes(v).decode("utf-8", "surrogateescape") for v in vals]
            if name == "tokenizer.ggml.tokens":
                nvocab = len(vals)
        else:
            vals = [v.tolist()[0] for v in vals]
        w.add_key_value(name, vals, t, sub_type=sub)
    elif t == gguf.GGUFValueType.STRING:
        w.add_key_value(name, bytes(field.parts[field.data[0]]).decode(), t)
    else:
        w.add_key_value(name, field.parts[field.data[0]].tolist()[0], t)
rng = np.random.default_rng(0)
def t(name, *shape):
    w.add_tensor(name, (rng.standard_normal(shape) * 0.05).astype(np.float16))
t("token_embd.weight", nvocab, E)
w.add_tensor("output_norm.weight", np.ones(E, np.float32))
for i in range(L):
    p = f"blk.{i}."
    w.add_tensor(p + "attn_norm.weight", np.ones(E, np.float32))
    t(p + "attn_q.weight", E, E); t(p + "attn_k.weight", E // H * KV, E); t(p + "attn_v.weight", E // H * KV, E)
    t(p + "attn_output.weight", E, E)
    w.add_tensor(p + "ffn_norm.weight", np.ones(E, np.float32))
    t(p + "ffn_gate.weight", FF, E); t(p + "ffn_up.weight", FF, E); t(p + "ffn_down.weight", E, FF)
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
print(dst, nvocab)
