"""The distilled-data format: one JSON object per line, one labelled judge example each.

    {"task": "knows",     "question": "...", "target": "know" | "unknow"}
    {"task": "relevance", "question": "...", "passage": "...", "target": "relevance" | "irrelevance"}
    {"task": "decompose", "question": "...", "target": "1. ...? 2. ...?"}

plus provenance: "id" (the dataset question) and "source" ("dataset" or "reader"). Inputs are
built from these fields by models.judges.t5_format at training and at inference alike.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

from models.judges import t5_format as fmt
from models.errors import AssistantError


@dataclass
class JudgeExample:
    task: str
    question: str
    target: str
    passage: str = ""
    id: str = ""
    source: str = ""

    def model_input(self) -> str:
        return fmt.build_input(self.task, self.question, self.passage)

    @property
    def positive(self) -> bool | None:
        """For the two-label tasks: whether the target is the positive label."""
        labels = fmt.LABELS.get(self.task)
        return None if labels is None else self.target == labels[0]


def validate(example: JudgeExample, where: str) -> JudgeExample:
    if example.task not in fmt.TASKS:
        raise AssistantError(f"{where}: unknown task {example.task!r} (known: {', '.join(fmt.TASKS)})")
    if not example.question.strip():
        raise AssistantError(f"{where}: empty question")
    if example.task in fmt.LABELS and example.target not in fmt.LABELS[example.task]:
        raise AssistantError(f"{where}: target {example.target!r} is not one of "
                             f"{' / '.join(fmt.LABELS[example.task])}")
    if example.task == fmt.RELEVANCE and not example.passage.strip():
        raise AssistantError(f"{where}: a relevance example needs a passage")
    if example.task == fmt.DECOMPOSE and not fmt.parse_decomposition(example.target, example.question):
        raise AssistantError(f"{where}: the decomposition target is not a list of 2+ questions")
    return example


def read_examples(path: Path) -> list[JudgeExample]:
    path = Path(path)
    if not path.is_file():
        raise AssistantError(f"no such training data file: {path}")
    examples = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AssistantError(f"cannot read {path}: {exc}") from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path.name} line {lineno}"
        try:
            record = json.loads(line)
            example = JudgeExample(**{k: str(record[k]) for k in ("task", "question", "target")},
                                   **{k: str(record[k]) for k in ("passage", "id", "source") if k in record})
        except json.JSONDecodeError as exc:
            raise AssistantError(f"{where} is not JSON ({exc.msg})") from None
        except (KeyError, TypeError):
            raise AssistantError(f"{where}: needs task, question and target fields") from None
        examples.append(validate(example, where))
    if not examples:
        raise AssistantError(f"{path.name}: no training examples")
    return examples


def write_examples(examples: Iterable[JudgeExample], fh) -> int:
    count = 0
    for example in examples:
        record = {k: v for k, v in asdict(example).items() if v or k in ("task", "question", "target")}
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count


def split_held_out(examples: list[JudgeExample], fraction: float) -> tuple[list[JudgeExample], list[JudgeExample]]:
    """(train, held_out), split by question so that no question is on both sides; deterministic."""
    train, held = [], []
    for example in examples:
        digest = hashlib.sha1((example.id or example.question).encode("utf-8")).digest()
        (held if digest[0] / 256 < fraction else train).append(example)
    if not train:  # a tiny file: train on everything rather than on nothing
        return held, held
    return train, held
