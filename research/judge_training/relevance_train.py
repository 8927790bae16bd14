"""Fine-tune the bundled all-MiniLM-L6-v2 into a cross-encoder: (question, passage) -> relevance.

The question and the passage are encoded together (so that each attends to the other), and
the score is the cosine between the mean of the question's tokens and the mean of the
passage's tokens (models.judges.relevance.segment_cosine). This head starts where the
bi-encoder already is (MiniLM was trained with mean pooling): a [CLS] head on these weights
learned nothing but the class prior (its held-out ranking stayed at chance), while this one starts
where the embedder's own ranking is and can only move from there.

Loss: listwise, as rerankers are trained: each supporting passage against its question's
negatives, softmax over the group at a fixed scale of 20 (a bias cannot lower it, so the
model has to separate passages). Probabilities come afterwards: P = sigmoid(a * cosine + b),
fitted on held-apart questions (relevance_pipeline). Fixed seed, torch on the CPU; batches
hold groups of similar length, since padding a mixed batch costs much of the time.
"""
from __future__ import annotations

import random
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from models.errors import AssistantError

from .relevance_pairs import RelevancePair

BUCKET_BATCHES = 50  # batches per length-sorted bucket: similar lengths, still well mixed
SCALE = 20.0  # cosine -> logit during training (the usual temperature of contrastive MiniLM training)


@dataclass
class TrainSettings:
    epochs: int = 1
    lr: float = 5e-5
    group_size: int = 4  # one supporting passage and up to 3 negatives of its question
    groups_per_batch: int = 4
    max_length: int = 192
    warmup: float = 0.1  # share of the steps with a rising learning rate
    seed: int = 0
    threads: int = 2


@dataclass
class TrainReport:
    pairs: int  # pair encodings trained on (over all epochs)
    steps: int
    first_loss: float
    last_loss: float
    seconds: float


def base_model_path() -> Path:
    from models.registry import bundled_embedder_path

    return bundled_embedder_path()


def load_encoder(folder: Path):
    """(BertModel-like encoder, tokenizer) of a sentence-transformers or checkpoint folder, offline."""
    import logging

    from transformers import AutoModel, AutoTokenizer

    logger = logging.getLogger("transformers")
    level = logger.level
    logger.setLevel(logging.ERROR)  # notes on unused pooler weights are not the user's business
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = AutoModel.from_pretrained(folder, local_files_only=True)
    except Exception as exc:  # transformers raises many kinds; one line for the user
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise AssistantError(f"cannot load the base model {folder}: {first}") from None
    finally:
        logger.setLevel(level)
    return model, tokenizer


def encode(tokenizer, questions: Sequence[str], passages: Sequence[str], max_length: int):
    # longest-first truncation, as the runtime's tokenizers.Tokenizer does: questions are short,
    # so in practice only the passage's tail is cut.
    return tokenizer(list(questions), list(passages), truncation=True, max_length=max_length,
                     padding=True, return_tensors="pt")


def cosines(model, inputs):
    """Question-segment vs passage-segment cosine of each encoded pair (torch), as the runtime's."""
    import torch

    hidden = model(**inputs).last_hidden_state
    mask = inputs["attention_mask"].unsqueeze(-1).float()
    passage = inputs["token_type_ids"].unsqueeze(-1).float() * mask
    question = mask - passage
    q = torch.nn.functional.normalize((hidden * question).sum(1) / question.sum(1).clamp(min=1), dim=-1)
    p = torch.nn.functional.normalize((hidden * passage).sum(1) / passage.sum(1).clamp(min=1), dim=-1)
    return (q * p).sum(-1)


def groups(pairs: Sequence[RelevancePair], size: int) -> list[list[int]]:
    """Indices: each supporting pair first, then up to size-1 negatives of its question (shared
    round-robin among its positives, so each negative is used about once)."""
    by_question: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for i, pair in enumerate(pairs):
        by_question[pair.question_id][0 if pair.label else 1].append(i)
    out = []
    for positives, negatives in by_question.values():
        if not negatives:
            continue
        take = min(size - 1, len(negatives))
        for n, positive in enumerate(positives):
            out.append([positive] + [negatives[(n * take + j) % len(negatives)] for j in range(take)])
    return out


def batches(grouped: list[list[int]], per_batch: int, lengths: Sequence[int], rng: random.Random) -> list[list[list[int]]]:
    """Groups in batches of similar length, in a seeded random order."""
    order = list(range(len(grouped)))
    rng.shuffle(order)
    longest = [max(lengths[i] for i in group) for group in grouped]
    out = []
    bucket = per_batch * BUCKET_BATCHES
    for start in range(0, len(order), bucket):
        chunk = sorted(order[start:start + bucket], key=lambda g: longest[g])
        out.extend([grouped[g] for g in chunk[i:i + per_batch]] for i in range(0, len(chunk), per_batch))
    rng.shuffle(out)
    return out


def fine_tune(pairs: Sequence[RelevancePair], out: Path, settings: TrainSettings = TrainSettings(),
              base: Path | None = None,
              on_step: Callable[[int, int, float], None] | None = None,
              grouped: list[list[int]] | None = None) -> TrainReport:
    """Train on `pairs` and save the encoder checkpoint (model + tokenizer) to `out`. Groups (indices
    into `pairs`, the positive first) are given, or made by `groups` from each question's pairs."""
    import torch

    if settings.epochs < 1 or settings.groups_per_batch < 1 or settings.group_size < 2 or settings.lr <= 0:
        raise AssistantError("epochs and batch size must be at least 1, groups at least 2, the learning rate positive")
    grouped = grouped if grouped is not None else groups(pairs, settings.group_size)
    if not grouped:
        raise AssistantError("no training groups: need supporting and non-supporting passages of the same questions")
    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, settings.threads))
    torch.manual_seed(settings.seed)
    rng = random.Random(settings.seed)
    model, tokenizer = load_encoder(base or base_model_path())
    lengths = [len(ids) for ids in tokenizer([p.question for p in pairs], [p.passage for p in pairs],
                                             truncation=True, max_length=settings.max_length)["input_ids"]]
    per_epoch = (len(grouped) + settings.groups_per_batch - 1) // settings.groups_per_batch
    total = settings.epochs * per_epoch
    warmup = max(1, int(settings.warmup * total))
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(  # linear warm-up, then linear decay to zero
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup))))
    model.train()
    started, step, losses, used = time.perf_counter(), 0, [], 0
    try:
        for _ in range(settings.epochs):
            for batch in batches(grouped, settings.groups_per_batch, lengths, rng):
                chosen = [pairs[i] for group in batch for i in group]
                scores = SCALE * cosines(model, encode(tokenizer, [p.question for p in chosen],
                                                       [p.passage for p in chosen], settings.max_length))
                loss, at = 0.0, 0
                for group in batch:  # the positive is each group's first: class 0
                    logits = scores[at:at + len(group)].unsqueeze(0)
                    loss = loss + torch.nn.functional.cross_entropy(logits, torch.zeros(1, dtype=torch.long))
                    at += len(group)
                loss = loss / len(batch)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
                step += 1
                used += len(chosen)
                losses.append(loss.item())
                if on_step:
                    on_step(step, total, losses[-1])
    finally:
        torch.set_num_threads(threads)
    model.eval()
    Path(out).mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    head = losses[:max(1, len(losses) // 10)]
    tail = losses[-max(1, len(losses) // 10):]
    return TrainReport(used, step, sum(head) / len(head), sum(tail) / len(tail), time.perf_counter() - started)


def torch_cosines(model, tokenizer, question: str, passages: Sequence[str], max_length: int = 192) -> list[float]:
    """The judge's raw score from a torch checkpoint (before export; the tests use it)."""
    import torch

    model.eval()
    with torch.no_grad():
        return cosines(model, encode(tokenizer, [question] * len(passages), passages, max_length)).tolist()
