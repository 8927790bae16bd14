"""The reader: chat generation, streaming and continuation scoring over llama-cpp-python.

Generation runs its own token loop so that every generated token's log-probability is
known (ReFeed's average token probability, RQ-RAG's confidence) without logits_all, and so
that calls sharing a prompt prefix reuse the evaluated KV cache.
"""
from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from models.errors import ModelError
from models.interrupt import Interruptible
from models.reader.special_tokens import escape_special

Message = dict  # {"role": "system" | "user" | "assistant", "content": str}


@dataclass
class Scored:
    """Per-token log-probabilities of a continuation."""

    token_logprobs: list[float]

    @property
    def logprob(self) -> float:
        return float(sum(self.token_logprobs))

    @property
    def avg_prob(self) -> float:
        """Mean token probability (ReFeed's ensemble score, RQ-RAG's confidence)."""
        lps = self.token_logprobs
        return float(np.mean(np.exp(lps))) if lps else 0.0

    @property
    def perplexity(self) -> float:
        lps = self.token_logprobs
        return float(math.exp(-sum(lps) / len(lps))) if lps else float("inf")


@dataclass
class Generation(Scored):
    text: str = ""
    finish: str = "stop"  # stop | length | loop


@dataclass
class ReaderStats:
    calls: int = 0
    prompt_tokens: int = 0  # prompt tokens of all calls
    evaluated_tokens: int = 0  # of those, the ones computed (the rest came from the prefix cache)
    completion_tokens: int = 0

    def snapshot(self) -> "ReaderStats":
        return ReaderStats(**self.__dict__)

    def since(self, before: "ReaderStats") -> dict:
        return {k: getattr(self, k) - getattr(before, k) for k in self.__dict__}


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


class Reader(Interruptible):
    def __init__(self, path: Path, n_ctx: int = 4096, n_gpu_layers: int = 0,
                 n_threads: int | None = None, prefix_cache: bool = True, extra_buffers: bool = False):
        self.path = Path(path)
        self.extra_buffers = extra_buffers  # off is safe on every CPU; registry picks per CPU
        self.name = self.path.stem
        self.prefix_cache = prefix_cache
        self.stats = ReaderStats()
        self._lock = threading.RLock()
        try:
            from models.reader.llama_load import load_llama

            threads = n_threads or max(1, os.cpu_count() or 1)
            # Prompt evaluation has its own thread count (llama.cpp defaults it to every core): a
            # user who lowers n_threads, e.g. on a busy machine, means both.
            self.llm = load_llama(self.path, extra_buffers, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers,
                                  n_threads=threads, n_threads_batch=threads, verbose=False)
        except Exception as exc:  # llama.cpp reports failures as bare ValueError/RuntimeError
            raise ModelError(f"cannot load reader model {self.path}: {exc}".splitlines()[0]) from None
        self.n_ctx = self.llm.n_ctx()
        self.n_vocab = self.llm.n_vocab()
        self._vocab = self.llm._model.vocab
        self._formatter = self._chat_formatter()
        self._abort_callback = None  # made on first use; kept referenced while llama.cpp may call it

    # -- stopping mid-call ---------------------------------------------------------------
    def _decode(self, decode, *args, abortable: bool = False) -> None:
        """llama.cpp's decode. `abortable` (a batch of prompt tokens): llama.cpp itself asks
        should_stop() between the steps of the decode, since one batch of a 1.5B reader on one
        thread takes tens of seconds and Ctrl-C waited for its end. Python
        runs the SIGINT handler that sets the flag inside that callback, which llama.cpp calls on
        this (the main) thread. One generated token is short: it is checked between tokens, and
        spared the callback's cost on every step."""
        import llama_cpp

        ctx = self.llm._ctx.ctx
        abort = abortable and self._should_stop is not None
        if abort:
            if self._abort_callback is None:
                self._abort_callback = llama_cpp.ggml_abort_callback(
                    lambda _data: bool(self._should_stop is not None and self._should_stop()))
            llama_cpp.llama_set_abort_callback(ctx, self._abort_callback, None)
        try:
            decode(*args)
        except RuntimeError:  # "llama_decode returned 2": aborted
            self.check_stop()  # raises Interrupted when the stop was the cause
            raise
        finally:
            if abort:
                llama_cpp.llama_set_abort_callback(ctx, llama_cpp.ggml_abort_callback(), None)

    # -- prompt ------------------------------------------------------------------------
    def _chat_formatter(self):
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelError(f"reader model {self.path} has no chat template; use an instruction-tuned GGUF")
        piece = lambda tok: self.llm.detokenize([tok], special=True).decode("utf-8", "ignore")
        return Jinja2ChatFormatter(template=template, eos_token=piece(self.llm.token_eos()),
                                   bos_token=piece(self.llm.token_bos()))

    def prompt_tokens(self, messages: Sequence[Message]) -> list[int]:
        """The chat prompt's tokens. Special tokens are parsed in the rendered prompt (the
        template's own turn markers), so what the messages say is escaped first: a document,
        title or question holding "<|im_start|>" stays text (models/special_tokens.py)."""
        own = (self._formatter.bos_token, self._formatter.eos_token)
        messages = [dict(m, content=escape_special(str(m.get("content", "")), own)) for m in messages]
        prompt = self._formatter(messages=messages).prompt
        return self.llm.tokenize(prompt.encode("utf-8"), add_bos=not prompt.startswith(
            self._formatter.bos_token or "\0"), special=True)

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    # -- low-level evaluation ----------------------------------------------------------
    def _eval_prompt(self, tokens: list[int]) -> np.ndarray:
        """Evaluate tokens, reusing the longest cached prefix; return the last token's logits."""
        if len(tokens) >= self.n_ctx:
            # passages are trimmed to fit before they get here (assistant/answering/prompt_fit.py), so
            # what is left too long is mostly the question itself
            raise ModelError(f"prompt of {len(tokens)} tokens does not fit the reader's context of "
                             f"{self.n_ctx}; shorten the question, lower --k or raise n_ctx")
        keep = 0
        if self.prefix_cache:
            cached = self.llm.input_ids[: self.llm.n_tokens]
            limit = min(len(cached), len(tokens) - 1)  # at least one token must run to get logits
            while keep < limit and cached[keep] == tokens[keep]:
                keep += 1
        self.llm.n_tokens = keep
        for start in range(keep, len(tokens), self.llm.n_batch):  # batches, so a stop is heard
            self.check_stop()
            self._decode(self.llm.eval, tokens[start:start + self.llm.n_batch], abortable=True)
        self.stats.prompt_tokens += len(tokens)
        self.stats.evaluated_tokens += len(tokens) - keep
        return self._last_logits()

    def _last_logits(self) -> np.ndarray:
        return np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.n_vocab,)).copy()

    def _eval_all_logits(self, tokens: list[int]) -> np.ndarray:
        """Evaluate tokens after the current state with logits for every position."""
        llm = self.llm
        out = np.empty((len(tokens), self.n_vocab), dtype=np.float32)
        step = llm.n_batch
        for start in range(0, len(tokens), step):
            part = tokens[start:start + step]
            llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
            llm._batch.set_batch(batch=part, n_past=llm.n_tokens, logits_all=True)
            self._decode(llm._ctx.decode, llm._batch, abortable=True)
            out[start:start + len(part)] = np.ctypeslib.as_array(
                llm._ctx.get_logits(), shape=(len(part) * self.n_vocab,)).reshape(len(part), -1)
            llm.input_ids[llm.n_tokens: llm.n_tokens + len(part)] = part
            llm.n_tokens += len(part)
        return out

    # -- public API --------------------------------------------------------------------
    def stream(self, messages: Sequence[Message], max_tokens: int = 128, temperature: float = 0.0,
               top_p: float = 0.95, seed: int = 0, stop: Sequence[str] = ()) -> Iterator[str | Generation]:
        """Yield text pieces as generated; the last item is the whole Generation."""
        with self._lock:
            self.stats.calls += 1
            tokens = self.prompt_tokens(messages)
            max_tokens = max(1, min(max_tokens, self.n_ctx - len(tokens) - 1))
            logits = self._eval_prompt(tokens)
            rng = np.random.default_rng(seed)
            logprobs: list[float] = []
            generated: list[int] = []
            raw = b""
            emitted = 0
            finish = "length"
            for _ in range(max_tokens):
                self.check_stop()
                lp = log_softmax(logits)
                token = int(np.argmax(lp)) if temperature <= 0 else _sample(logits, temperature, top_p, rng)
                if self._is_end(token):
                    finish = "stop"
                    break
                logprobs.append(float(lp[token]))
                generated.append(token)
                if _looping(generated):
                    finish = "loop"
                    break
                raw += self.llm.detokenize([token])
                text = raw.decode("utf-8", errors="ignore")
                hit = next((s for s in stop if s and s in text), None)
                if hit:
                    finish = "stop"
                    text = text[: text.index(hit)]
                    if len(text) > emitted:
                        yield text[emitted:]
                    emitted = len(text)
                    break
                safe = len(text) - max((len(s) for s in stop), default=0)  # hold back a partial stop
                if safe > emitted:
                    yield text[emitted:safe]
                    emitted = safe
                self._decode(self.llm.eval, [token])
                logits = self._last_logits()
            self.stats.completion_tokens += len(logprobs)
            text = raw.decode("utf-8", errors="ignore")
            for s in stop:
                if s and s in text:
                    text = text[: text.index(s)]
            if len(text) > emitted:
                yield text[emitted:]
            yield Generation(token_logprobs=logprobs, text=text.strip(), finish=finish)

    def generate(self, messages: Sequence[Message], **kwargs) -> Generation:
        result = None
        for result in self.stream(messages, **kwargs):
            pass
        return result

    def sample(self, messages: Sequence[Message], n: int, temperature: float = 0.7, top_p: float = 0.95,
               seed: int = 0, **kwargs) -> list[Generation]:
        """n diverse generations; the shared prompt is evaluated once (prefix cache)."""
        return [self.generate(messages, temperature=temperature, top_p=top_p, seed=seed + i, **kwargs)
                for i in range(n)]

    def score(self, messages: Sequence[Message], continuation: str) -> Scored:
        """Log-probabilities of `continuation` as the assistant's reply to `messages`."""
        return self.score_options(messages, [continuation])[0]

    def score_options(self, messages: Sequence[Message], options: Sequence[str]) -> list[Scored]:
        """Score several continuations of one prompt; the prompt is evaluated once."""
        with self._lock:
            self.stats.calls += 1
            prompt = self.prompt_tokens(messages)
            first = log_softmax(self._eval_prompt(prompt))
            results = []
            for option in options:
                cont = self.llm.tokenize(option.encode("utf-8"), add_bos=False, special=False)
                if not cont:
                    results.append(Scored([]))
                    continue
                if len(prompt) + len(cont) >= self.n_ctx:
                    raise ModelError(f"prompt and continuation exceed the reader's context of {self.n_ctx}")
                self.llm.n_tokens = len(prompt)
                rest = log_softmax(self._eval_all_logits(cont[:-1])) if len(cont) > 1 else np.empty((0, 1))
                lps = [float(first[cont[0]])] + [float(rest[i, cont[i + 1]]) for i in range(len(cont) - 1)]
                self.stats.evaluated_tokens += len(cont) - 1
                results.append(Scored(lps))
            return results

    def _is_end(self, token: int) -> bool:
        from llama_cpp import llama_vocab_is_eog

        return bool(llama_vocab_is_eog(self._vocab, token))


def _looping(tokens: list[int], span: int = 4, repeats: int = 3) -> bool:
    """True when the tail is one short token cycle repeated: small models fall into these."""
    for size in range(1, span * 4 + 1):
        tail = tokens[-size * repeats:]
        if len(tail) == size * repeats and all(tail[i] == tail[i % size] for i in range(len(tail))):
            return size * repeats >= 8
    return False


def _sample(logits: np.ndarray, temperature: float, top_p: float, rng: np.random.Generator) -> int:
    scaled = logits.astype(np.float64) / temperature
    probs = np.exp(scaled - scaled.max())
    probs /= probs.sum()
    order = np.argsort(-probs)
    cumulative = np.cumsum(probs[order])
    cut = int(np.searchsorted(cumulative, top_p)) + 1
    keep = order[:cut]
    return int(rng.choice(keep, p=probs[keep] / probs[keep].sum()))
