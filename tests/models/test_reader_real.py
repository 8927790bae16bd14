"""The reader against the bundled SmolLM2 GGUF: scoring checked by a hand computation."""
import math

import numpy as np
import pytest

from models.config import Settings
from models.errors import Interrupted
from models.reader.llama_reader import Reader, Scored, log_softmax
from models.registry import bundled_reader_path

pytestmark = pytest.mark.real_models
MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]
CONTINUATION = "The capital of France is Paris."


@pytest.fixture(scope="module")
def reader():
    return Reader(bundled_reader_path(), n_ctx=512)


def test_scored_statistics_by_hand():
    s = Scored([math.log(0.5), math.log(0.25)])
    assert s.avg_prob == pytest.approx(0.375)
    assert s.perplexity == pytest.approx(math.exp(-(math.log(0.5) + math.log(0.25)) / 2))
    assert s.logprob == pytest.approx(math.log(0.125))


def test_score_matches_full_logits_computation(reader):
    from models.reader.llama_load import load_llama

    scored = reader.score(MESSAGES, CONTINUATION)
    # Independent computation: one pass over prompt + continuation with every position's logits.
    full = load_llama(reader.path, reader.extra_buffers, n_ctx=512, logits_all=True, verbose=False)
    prompt = reader.prompt_tokens(MESSAGES)
    cont = full.tokenize(CONTINUATION.encode(), add_bos=False, special=False)
    full.eval(prompt + cont)
    logits = np.array(full.scores[: len(prompt) + len(cont)])
    expected = [float(log_softmax(logits[len(prompt) - 1 + i])[tok]) for i, tok in enumerate(cont)]
    assert len(scored.token_logprobs) == len(cont)
    np.testing.assert_allclose(scored.token_logprobs, expected, atol=2e-3)
    assert 0 < scored.avg_prob < 1


def test_generation_logprobs_agree_with_scoring(reader):
    generation = reader.generate(MESSAGES, max_tokens=12)
    assert generation.text and len(generation.token_logprobs) >= 1
    rescored = reader.score(MESSAGES, generation.text)
    # greedy tokens re-tokenise the same way for plain text; the first token must agree exactly
    assert rescored.token_logprobs[0] == pytest.approx(generation.token_logprobs[0], abs=2e-3)


def test_prefix_cache_reuses_prompt_and_keeps_results(reader):
    reader.generate(MESSAGES, max_tokens=2)
    before = reader.stats.snapshot()
    cached = reader.score_options(MESSAGES, ["Paris", "London"])
    evaluated_with_cache = reader.stats.since(before)["evaluated_tokens"]
    reader.prefix_cache = False
    try:
        before = reader.stats.snapshot()
        uncached = reader.score_options(MESSAGES, ["Paris", "London"])
        evaluated_without = reader.stats.since(before)["evaluated_tokens"]
    finally:
        reader.prefix_cache = True
    assert evaluated_with_cache < evaluated_without
    # A cached prefix leaves a shorter batch to evaluate, and llama.cpp picks its matmul kernels by
    # batch size: on AVX-512 EPYC the 4-bit model's log-probs move by ~0.1 (on AMX Xeon by <0.002).
    # Reusing the wrong cache entry moves them by whole nats and reorders the options.
    for a, b in zip(cached, uncached):
        np.testing.assert_allclose(a.token_logprobs, b.token_logprobs, atol=0.25)
    assert np.argmax([s.logprob for s in cached]) == np.argmax([s.logprob for s in uncached])


def test_sampling_gives_diverse_drafts_and_streaming_matches(reader):
    drafts = reader.sample(MESSAGES, n=3, temperature=1.0, max_tokens=10, seed=1)
    assert len({d.text for d in drafts}) >= 2
    pieces = list(reader.stream(MESSAGES, max_tokens=10))
    assert "".join(p for p in pieces[:-1] if isinstance(p, str)).strip() == pieces[-1].text


def test_a_stop_ends_a_call_mid_answer_and_the_reader_stays_usable(reader):
    checks = []

    def stop_after_three_checks():
        checks.append(1)
        return len(checks) > 3

    before = reader.stats.snapshot()
    with reader.interruptible(stop_after_three_checks):
        with pytest.raises(Interrupted):
            reader.generate(MESSAGES, max_tokens=64)
    assert reader.stats.since(before)["completion_tokens"] == 0  # stopped before its count
    # heard at the first check that said stop: llama.cpp asks inside the prompt's decode (abort
    # callback), then the reader's own check raises; a missed stop would ask once per token
    assert 4 <= len(checks) <= 5
    whole = reader.generate(MESSAGES, max_tokens=10)  # outside the block nothing stops it
    assert whole.text and whole.finish in ("stop", "length")


def test_settings_pick_the_bundled_reader():
    from models.registry import reader_path

    assert reader_path(Settings()).suffix == ".gguf"
