"""The API under `assistant judge ...` and `assistant models export-judge`: distil training
examples, train and export the judges (research/judge_training does the work). Like
assistant.service for questions and the index, it keeps the front ends off the layer's insides;
it lives in research/ so that no service the answer path loads imports training code.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from models.config import Settings
from models.errors import AssistantError

Say = Callable[[str], None]  # one line of progress
StepReport = Callable[[int, int, float], None]  # (step, steps, loss)


def distill_examples(settings: Settings, questions: list, out: Path, retriever=None,
                     on_question: Callable[[int], None] | None = None) -> tuple[int, dict]:
    """Label self-knowledge, relevance and decomposition examples of `questions` with the reader
    (RA-ISF appendix A) into `out` (written whole or not at all): (examples written, counts)."""
    from models import registry
    from models.judges.prompted import ReaderJudge

    from .judge_training.data import write_examples
    from .judge_training.distill import Distiller

    model = registry.get_reader(settings)
    distiller = Distiller(model, ReaderJudge(model), retriever, k=settings.k,
                          max_answer_tokens=settings.max_answer_tokens)
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as fh:
            written = write_examples(_reporting(distiller.examples(questions), distiller, on_question), fh)
    except OSError as exc:
        raise AssistantError(f"cannot write {out}: {exc.strerror}") from None
    partial.replace(out)
    return written, dict(distiller.counts)


def _reporting(examples: Iterable, distiller, on_question: Callable[[int], None] | None):
    """The examples, calling on_question(questions done) whenever that count moves."""
    done = 0
    for example in examples:
        if on_question and distiller.counts["questions"] != done:
            done = distiller.counts["questions"]
            on_question(done)
        yield example


def default_judge_folder(data_dir: Path, checkpoint: Path, int8: bool) -> Path:
    """Where a judge made from `checkpoint` goes when no --out is given: <data dir>/judges/..."""
    from .judge_training.export import default_out

    return default_out(data_dir, checkpoint, int8)


def export_t5_judge(checkpoint: Path, out: Path, int8: bool = False) -> Path:
    """A T5 checkpoint exported to ONNX (only the files inference needs) into `out`."""
    from .judge_training.export import export_judge

    return export_judge(checkpoint, out, int8=int8)


def train_t5_judge(data: Path, base: Path, out: Path, on_step: StepReport | None = None, **options):
    """Fine-tune the T5 `base` on distilled `data`, export and calibrate it into `out`:
    (folder, training report, calibration). `options`: epochs, lr, batch_size, int8, save_checkpoint."""
    from .judge_training.pipeline import train_judge

    return train_judge(data, base, out, on_step=on_step, **options)


def train_relevance_judge(settings: Settings, shared_data: Path, out: Path, limit: int | None = None,
                          on_progress: Say | None = None, on_step: StepReport | None = None, **training):
    """Train the passage-relevance judge from the shared data's support labels into `out`.
    `training`: TrainSettings' fields (epochs, lr, max_length, seed, threads)."""
    from models import registry

    from .judge_training.relevance_pipeline import train_relevance_judge as train
    from .judge_training.relevance_train import TrainSettings

    return train(shared_data, out, settings.data_dir, registry.get_embedder(settings), TrainSettings(**training),
                 limit=limit, on_progress=on_progress, on_step=on_step)


def check_training_data(shared_data: Path) -> Path:
    """The shared data folder, if it holds every file training needs; else one clear error."""
    from .judge_training.relevance_data import check_data_dir

    return check_data_dir(shared_data)


def train_selector(settings: Settings, shared_data: Path, judge_folder: Path, say: Say, **options):
    """Train the passage selector beside the judge in `judge_folder`. `options`: seed,
    expansions, limit, cache."""
    from models import registry

    from .judge_training.selector_pipeline import train_selector as train

    return train(shared_data, judge_folder, settings.data_dir, registry.get_embedder(settings), say=say, **options)
