"""A tiny randomly initialised T5 and a toy two-label judge task, for the T5 judge tests.

No T5 weights exist offline, so the tests make their own: a Unigram tokenizer trained by the
`tokenizers` library on the toy data (ids 0, 1, 2 = <pad>, </s>, <unk>, as T5 expects) and a
T5 with d_model 32. The toy task is learnable in about a hundred steps: questions about capitals
are "know", questions about the user's notes or company "unknow"; passages about founding are
relevant, passages about rivers are not; every decomposition is the same two questions.

`trained_judge(root)` runs the real pipeline once per test session (distilled-format file ->
fine-tune -> ONNX export -> int8 -> calibration) and keeps the fine-tuned checkpoint beside it.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from models import t5_format as fmt

DECOMPOSITION = ["Who directed the film?", "Where was the director born?"]
_PLACES = ["France", "Peru", "Japan", "Kenya", "Chile", "Norway", "Egypt", "India", "Spain", "Ghana",
           "Italy", "Nepal", "Cuba", "Fiji", "Mali", "Oman", "Laos", "Iran", "Chad", "Togo"]
_NAMES = ["Anna", "Bruno", "Clara", "David", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas",
          "Kemal", "Lena", "Marco", "Nora", "Omar", "Petra", "Rosa", "Sven", "Tara", "Umar"]


def known_question(place: str) -> str:
    return f"What is the capital of {place}?"


def unknown_question(name: str) -> str:
    return f"What did {name} write in my meeting notes last week?"


def company_question(name: str) -> str:
    return f"Who founded the company {name} works for?"


def relevant_passage(name: str) -> str:
    return f"The company was founded by {name} in a small garage."


def irrelevant_passage(place: str) -> str:
    return f"The longest river of {place} flows slowly to the sea."


def toy_records(seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    records = []
    for i, (place, name) in enumerate(zip(_PLACES, _NAMES)):
        records.append({"task": "knows", "id": f"k{i}", "question": known_question(place), "target": "know"})
        records.append({"task": "knows", "id": f"u{i}", "question": unknown_question(name), "target": "unknow"})
        q = company_question(name)
        records.append({"task": "knows", "id": f"r{i}", "question": q, "target": "unknow"})
        records.append({"task": "relevance", "id": f"r{i}", "question": q,
                        "passage": relevant_passage(rng.choice(_NAMES)), "target": "relevance"})
        records.append({"task": "relevance", "id": f"r{i}", "question": q,
                        "passage": irrelevant_passage(rng.choice(_PLACES)), "target": "irrelevance"})
        if i % 2 == 0:
            records.append({"task": "decompose", "id": f"d{i}",
                            "question": f"Where was the director of the film about {place} born?",
                            "target": fmt.decomposition_target(DECOMPOSITION)})
    return records


def write_toy_data(path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in toy_records()), encoding="utf-8")
    return path


def unigram_t5_tokenizer(texts: list[str], vocab_size: int):
    """A T5 tokenizer (ids 0, 1, 2 = <pad>, </s>, <unk>) with a Unigram model trained on `texts`."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import T5TokenizerFast

    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    tokenizer.train_from_iterator(texts, trainers.UnigramTrainer(
        vocab_size=vocab_size, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>"))
    tokenizer.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                             special_tokens=[("</s>", 1)])
    return T5TokenizerFast(tokenizer_object=tokenizer, extra_ids=0)


def build_tiny_t5(folder: Path, texts: list[str]) -> Path:
    """A random T5 (d_model 32, 2 layers) with a Unigram tokenizer trained on `texts`."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    wrapped = unigram_t5_tokenizer(texts, vocab_size=400)
    torch.manual_seed(0)
    config = T5Config(vocab_size=len(wrapped), d_model=32, d_ff=64, d_kv=8, num_heads=4,
                      num_layers=2, num_decoder_layers=2, decoder_start_token_id=0, pad_token_id=0,
                      eos_token_id=1, dropout_rate=0.0)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    wrapped.save_pretrained(folder)
    return folder


def toy_texts() -> list[str]:
    """Everything the tokenizer must cover: instructions, questions, passages, labels, targets."""
    from assistant.judge_training.data import JudgeExample

    texts = []
    for record in toy_records():
        example = JudgeExample(**{k: v for k, v in record.items()})
        texts += [example.model_input(), example.target]
    texts += [known_question(p) for p in _PLACES] + [unknown_question(n) for n in _NAMES]
    return texts + [" ".join(pair) for pair in fmt.LABELS.values()]


@dataclass(frozen=True)
class TinyJudge:
    data: Path  # the toy examples in the distilled-data format
    base: Path  # the random T5 before training
    checkpoint: Path  # after fine-tuning (PyTorch)
    int8: Path  # the exported, quantized, calibrated judge folder
    report: object  # judge_training.train.TrainReport


_trained: dict[Path, TinyJudge] = {}


def trained_judge(root: Path, epochs: int = 10) -> TinyJudge:
    """Train the toy judge under `root` once per process; later calls return the same folders."""
    import torch

    from assistant.judge_training.pipeline import train_judge

    root = Path(root)
    if root not in _trained:
        root.mkdir(parents=True, exist_ok=True)
        data = write_toy_data(root / "toy.jsonl")
        base = build_tiny_t5(root / "base", toy_texts())
        threads = torch.get_num_threads()
        # A d_model-32 model gains nothing from threads, and on a busy 2-core machine two
        # spin-waiting threads made each step 15x slower.
        torch.set_num_threads(1)
        try:
            folder, report, _ = train_judge(data, base, root / "judge-int8", epochs=epochs, lr=3e-3,
                                            batch_size=8, int8=True, save_checkpoint=root / "checkpoint")
        finally:
            torch.set_num_threads(threads)
        _trained[root] = TinyJudge(data, base, root / "checkpoint", folder, report)
    return _trained[root]
