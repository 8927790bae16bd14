"""`assistant judge ...`: distil training data with the reader, fine-tune and export a T5 judge."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .main import app

judge_app = typer.Typer(help="Make a T5 judge: distil labelled data with the reader, fine-tune, export.",
                        no_args_is_help=True)
app.add_typer(judge_app, name="judge")


@judge_app.command("distill")
def distill(
    dataset: Path = typer.Argument(..., help="A QA dataset file (HotpotQA, MuSiQue, 2Wiki, NQ, ...)."),
    out: Path = typer.Option(..., "--out", help="Where to write the labelled examples (.jsonl)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Use only the first N questions."),
    index: Optional[Path] = typer.Option(None, "--index", help="Index for questions without paragraph flags."),
    reader: Optional[Path] = typer.Option(None, "--reader", help="Reader model that labels: a .gguf file."),
    k: Optional[int] = typer.Option(None, "--k", min=1, max=50, help="Passages retrieved per question."),
) -> None:
    """Label self-knowledge, relevance and decomposition examples with the reader (RA-ISF appendix A).

    Example: assistant judge distill musique_train.json --out judge-data.jsonl --limit 200
    """
    from models import registry
    from models.config import load_settings
    from models.judge_reader import ReaderJudge

    from ..evaluation.datasets import load_dataset
    from ..judge_training.data import write_examples
    from ..judge_training.distill import Distiller

    settings = load_settings(index=index, reader=reader, k=k)
    questions = load_dataset(dataset, limit)
    retriever = _retriever_if_needed(settings, questions)
    model = registry.get_reader(settings)
    distiller = Distiller(model, ReaderJudge(model), retriever, k=settings.k,
                          max_answer_tokens=settings.max_answer_tokens)
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as fh:
            written = write_examples(_with_progress(distiller.examples(questions), distiller, len(questions)), fh)
    except OSError as exc:
        from models.errors import AssistantError

        raise AssistantError(f"cannot write {out}: {exc.strerror}") from None
    partial.replace(out)
    typer.echo(f"{written} examples from {len(questions)} questions -> {out}", err=False)
    typer.echo("  " + ", ".join(f"{key} {value}" for key, value in sorted(distiller.counts.items())
                                if key != "questions"))


def _retriever_if_needed(settings, questions):
    """The index serves relevance labels only for questions without supporting-paragraph flags."""
    if all(any(p.is_supporting for p in q.paragraphs) for q in questions):
        return None
    if not settings.index_path.exists():
        typer.echo(f"note: no index at {settings.index_path}; questions without paragraph flags get no "
                   "relevance examples", err=True)
        return None
    from index_builder.store import IndexStore
    from models import registry

    from ..retriever import HybridRetriever

    return HybridRetriever(IndexStore.open(settings.index_path), registry.get_embedder(settings))


def _with_progress(examples, distiller, total: int):
    done = 0
    for example in examples:
        if distiller.counts["questions"] != done:
            done = distiller.counts["questions"]
            typer.echo(f"\r  question {done}/{total}", nl=False, err=True)
        yield example
    typer.echo("", err=True)


@judge_app.command("train")
def train(
    data: Path = typer.Argument(..., help="Distilled examples (.jsonl from `assistant judge distill`)."),
    base: Path = typer.Option(..., "--base", help="The T5 checkpoint folder to fine-tune (e.g. flan-t5-large)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Judge folder (default: <data dir>/judges/...)."),
    epochs: int = typer.Option(3, "--epochs", min=1, max=100),
    lr: float = typer.Option(3e-4, "--lr", help="AdamW learning rate."),
    batch_size: int = typer.Option(8, "--batch-size", min=1, max=512),
    int8: bool = typer.Option(False, "--int8", help="Quantize the exported judge to int8 (about 4x smaller)."),
    save_checkpoint: Optional[Path] = typer.Option(None, "--save-checkpoint",
                                                   help="Also keep the fine-tuned PyTorch checkpoint here."),
    use: bool = typer.Option(True, "--use/--no-use", help="Register the result as the judge in config.toml."),
) -> None:
    """Fine-tune a T5 on distilled data (torch, CPU), export to ONNX, calibrate, register as the judge.

    Example: assistant judge train judge-data.jsonl --base ~/models/flan-t5-large --int8
    """
    from models.config import load_settings

    from ..judge_training.export import default_out, register
    from ..judge_training.pipeline import train_judge

    settings = load_settings(config_may_be_missing=use)  # `register` may create the config file
    out = out or default_out(settings.data_dir, Path(str(base).rstrip("/") + "-judge"), int8)

    def progress(step: int, total: int, loss: float) -> None:
        typer.echo(f"\r  step {step}/{total}  loss {loss:.4f}", nl=False, err=True)

    folder, report, calibration = train_judge(data, base, out, epochs=epochs, lr=lr, batch_size=batch_size,
                                              int8=int8, save_checkpoint=save_checkpoint, on_step=progress)
    typer.echo("", err=True)
    typer.echo(f"trained on {report.examples} examples: {report.steps} steps in {report.seconds:.0f}s, "
               f"loss {report.first_loss:.3f} -> {report.last_loss:.3f}")
    for task, held in calibration.held_out.items():
        typer.echo(f"  {task}: threshold {getattr(calibration, task + '_threshold'):.3f}, held-out accuracy "
                   f"{held['accuracy']:.3f} on {held['examples']} (at 0.5: {held['accuracy_at_0.5']:.3f})")
    typer.echo(f"judge: {folder}")
    if use:
        typer.echo(f"registered as the judge in {register(folder)}")
