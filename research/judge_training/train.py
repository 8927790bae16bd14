"""Fine-tune a T5 checkpoint on distilled judge data (conditional LM loss, as RA-ISF), on torch.

One model learns all three tasks; the task is in the input instruction. A held-out share of
the questions is kept back to calibrate the thresholds of the exported model.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from models.judges import t5_format as fmt
from models.errors import AssistantError

from .data import JudgeExample


@dataclass
class TrainReport:
    examples: int
    steps: int
    first_loss: float
    last_loss: float
    seconds: float


def fine_tune(base: Path, examples: list[JudgeExample], out: Path, epochs: int = 3, lr: float = 3e-4,
              batch_size: int = 8, seed: int = 0,
              on_step: Callable[[int, int, float], None] | None = None) -> TrainReport:
    """Train `base` on `examples` and save the result (model + tokenizer) to `out`."""
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    if epochs < 1 or batch_size < 1 or lr <= 0:
        raise AssistantError("epochs and batch size must be at least 1 and the learning rate positive")
    try:
        tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
        model = T5ForConditionalGeneration.from_pretrained(base, local_files_only=True)
    except Exception as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise AssistantError(f"cannot load T5 checkpoint {base}: {first}") from None
    torch.manual_seed(seed)
    rng = random.Random(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    order = list(examples)
    total = epochs * ((len(order) + batch_size - 1) // batch_size)
    started, step, losses = time.perf_counter(), 0, []
    for _ in range(epochs):
        rng.shuffle(order)
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            inputs = tokenizer([e.model_input() for e in batch], return_tensors="pt", padding=True,
                               truncation=True, max_length=fmt.MAX_INPUT_TOKENS)
            labels = tokenizer([e.target for e in batch], return_tensors="pt", padding=True,
                               truncation=True, max_length=fmt.MAX_DECOMPOSITION_TOKENS).input_ids
            labels[labels == tokenizer.pad_token_id] = -100  # padding is not a target
            loss = model(input_ids=inputs.input_ids, attention_mask=inputs.attention_mask, labels=labels).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            step += 1
            losses.append(loss.item())
            if on_step:
                on_step(step, total, losses[-1])
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    tail = losses[-max(1, len(losses) // 10):]
    return TrainReport(len(examples), step, losses[0], sum(tail) / len(tail), time.perf_counter() - started)
