"""The trust bar on examples/docs (issue 30): a question set written for it (tests/data/
examples_docs_questions.jsonl, half of it not answerable from the folder), asked with the default
strategy (less the hop and ReFeed stages, for time). With the bundled SmolLM2 no wrong answer may be presented as supported (it may appear only
labelled "not in your documents"); with Qwen 1.5B, where its GGUF is on this machine, at least 80%
must be right or honestly not presented as supported ("not in your documents", or "written, not
confirmed" where a file writes the reader's near miss)."""
import json
from pathlib import Path

import pytest

from assistant.answering.answer_norm import squad_normalize
from assistant.events.core import Answer
from assistant.grounding.verdict import SUPPORTED, UNSUPPORTED
from assistant.grounding.written import WRITTEN
from assistant.runner import build_context, run_question
from assistant.strategies import make_strategy
from models.config import Settings

pytestmark = pytest.mark.real_models

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = [json.loads(line) for line in (ROOT / "tests/data/examples_docs_questions.jsonl").read_text().splitlines()]
# the default pipeline without its costliest stages (the missing hop, ReFeed's check): the grounding
# check is the same, and 22 questions stay within a few minutes on a busy CPU
SPEC = "default:hop=never,refine=false"
QWEN = Path("/root/.cache/gguf-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")


def right(answer: str, golds: list[str]) -> bool:
    said = f" {squad_normalize(answer)} "
    return any(f" {squad_normalize(g)} " in said for g in golds)


def test_the_question_set_is_half_unanswerable():
    assert len(QUESTIONS) >= 20
    assert sum(not q["answerable"] for q in QUESTIONS) >= len(QUESTIONS) / 2
    assert all(bool(q["answers"]) == q["answerable"] for q in QUESTIONS)


def answers(tmp_path_factory, reader=None):
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore
    from models import registry

    settings = Settings(data_dir=tmp_path_factory.mktemp("examples") / "data", reader=reader, max_reader_calls=6,
                        max_answer_tokens=48)
    embedder = registry.get_embedder(settings)
    store = IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim)
    index_folder(store, embedder, ROOT / "examples" / "docs")
    strategy = make_strategy(SPEC)
    ctx = build_context(settings, strategy)
    out = []
    for q in QUESTIONS:
        answer = list(run_question(q["question"], strategy, ctx))[-1]
        assert isinstance(answer, Answer)
        out.append((q, answer))
        print(f"{q['question']} -> {answer.grounding}: {answer.marked_text}")
    return out


# The new user's Otter case: SmolLM2 answers "Who leads Project Otter?" with Heron's leader in a
# sentence naming Otter ("Project Otter is led by the marine engineer Mira Okafor"). Every word of it
# but "Otter" is on Heron's page, so the claim trees alone found it supported; the names rule (the
# sentence's names held by the passage holding its claim, or a bridge linked to it) labels it
# "not in your documents" (it was an xfail until then).
@pytest.mark.slow
def test_smollm2_presents_no_wrong_answer_as_supported(tmp_path_factory):
    wrong_but_supported = [(q["question"], a.text) for q, a in answers(tmp_path_factory)
                           if a.grounding == SUPPORTED and not right(a.text, q["answers"])]
    assert wrong_but_supported == []


@pytest.mark.slow
@pytest.mark.skipif(not QWEN.is_file(), reason="the Qwen 1.5B GGUF is not on this machine")
def test_qwen_is_right_or_honest_on_most(tmp_path_factory):
    results = answers(tmp_path_factory, reader=QWEN)
    good = [q["question"] for q, a in results if (a.grounding == SUPPORTED and right(a.text, q["answers"]))
            or (a.grounding in (UNSUPPORTED, WRITTEN) and not q["answerable"])]
    assert len(good) >= 0.8 * len(results), [(q["question"], a.grounding, a.text) for q, a in results]
