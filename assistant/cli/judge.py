"""`assistant judge ...`: distil training data with the reader, fine-tune and export a T5 judge;
train and try the passage-relevance judge (a MiniLM cross-encoder)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from models.config import allowed

from .paths import given_path

judge_app = typer.Typer(help="Make a T5 judge (distill, train) or the passage-relevance judge (train-relevance, score).",
                        no_args_is_help=True)


@judge_app.command("distill")
def distill(
    dataset: Path = typer.Argument(..., parser=given_path, help="A QA dataset file (HotpotQA, MuSiQue, 2Wiki, NQ, ...)."),
    out: Path = typer.Option(..., "--out", parser=given_path, help="Where to write the labelled examples (.jsonl)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Use only the first N questions."),
    index: Optional[Path] = typer.Option(None, "--index", parser=given_path, help="Index for questions without paragraph flags."),
    reader: Optional[Path] = typer.Option(None, "--reader", parser=given_path, help="Reader model that labels: a .gguf file."),
    k: Optional[int] = typer.Option(None, "--k", min=allowed("k").low, max=allowed("k").high,
                                    help="Passages retrieved per question."),
) -> None:
    """Label self-knowledge, relevance and decomposition examples with the reader (RA-ISF appendix A).

    Example: assistant judge distill musique_train.json --out judge-data.jsonl --limit 200
    """
    from models.config import load_settings

    from research import judge_service

    from .. import service

    settings = load_settings(index=index, reader=reader, k=k)
    questions = service.read_dataset(dataset, limit).examples
    retriever = _retriever_if_needed(settings, questions)

    def progress(done: int) -> None:
        typer.echo(f"\r  question {done}/{len(questions)}", nl=False, err=True)

    written, counts = judge_service.distill_examples(settings, questions, out, retriever, on_question=progress)
    typer.echo("", err=True)
    typer.echo(f"{written} examples from {len(questions)} questions -> {out}", err=False)
    typer.echo("  " + ", ".join(f"{key} {value}" for key, value in sorted(counts.items()) if key != "questions"))


def _retriever_if_needed(settings, questions):
    """The index serves relevance labels only for questions without supporting-paragraph flags."""
    if all(any(p.is_supporting for p in q.paragraphs) for q in questions):
        return None
    if not settings.index_path.exists():
        typer.echo(f"note: no index at {settings.index_path}; questions without paragraph flags get no "
                   "relevance examples", err=True)
        return None
    from .. import service

    return service.open_retriever(settings)


@judge_app.command("train")
def train(
    data: Path = typer.Argument(..., parser=given_path, help="Distilled examples (.jsonl from `assistant judge distill`)."),
    base: Path = typer.Option(..., "--base", parser=given_path, help="The T5 checkpoint folder to fine-tune (e.g. flan-t5-large)."),
    out: Optional[Path] = typer.Option(None, "--out", parser=given_path, help="Judge folder (default: <data dir>/judges/...)."),
    epochs: int = typer.Option(3, "--epochs", min=1, max=100),
    lr: float = typer.Option(3e-4, "--lr", help="AdamW learning rate."),
    batch_size: int = typer.Option(8, "--batch-size", min=1, max=512),
    int8: bool = typer.Option(False, "--int8", help="Quantize the exported judge to int8 (about 4x smaller)."),
    save_checkpoint: Optional[Path] = typer.Option(None, "--save-checkpoint",
                                                   parser=given_path, help="Also keep the fine-tuned PyTorch checkpoint here."),
    use: bool = typer.Option(True, "--use/--no-use", help="Register the result as the judge in config.toml."),
) -> None:
    """Fine-tune a T5 on distilled data (torch, CPU), export to ONNX, calibrate, register as the judge.

    Example: assistant judge train judge-data.jsonl --base ~/models/flan-t5-large --int8
    """
    from models.config import load_settings
    from models.user_config import use_t5_judge

    from research import judge_service

    settings = load_settings(config_may_be_missing=use)  # `use_t5_judge` may create the config file
    out = out or judge_service.default_judge_folder(settings.data_dir, Path(str(base).rstrip("/") + "-judge"), int8)

    def progress(step: int, total: int, loss: float) -> None:
        typer.echo(f"\r  step {step}/{total}  loss {loss:.4f}", nl=False, err=True)

    folder, report, calibration = judge_service.train_t5_judge(
        data, base, out, on_step=progress, epochs=epochs, lr=lr, batch_size=batch_size, int8=int8,
        save_checkpoint=save_checkpoint)
    typer.echo("", err=True)
    typer.echo(f"trained on {report.examples} examples: {report.steps} steps in {report.seconds:.0f}s, "
               f"loss {report.first_loss:.3f} -> {report.last_loss:.3f}")
    for task, held in calibration.held_out.items():
        typer.echo(f"  {task}: threshold {getattr(calibration, task + '_threshold'):.3f}, held-out accuracy "
                   f"{held['accuracy']:.3f} on {held['examples']} (at 0.5: {held['accuracy_at_0.5']:.3f})")
    typer.echo(f"judge: {folder}")
    if use:
        typer.echo(f"registered as the judge in {use_t5_judge(folder)}")


def _default_shared_data() -> Path:
    """../shared/data beside the project checkout (where the issue's data lives)."""
    return Path(__file__).resolve().parents[3] / "shared" / "data"


@judge_app.command("train-relevance")
def train_relevance(
    out: Path = typer.Option(..., "--out", parser=given_path, help="Folder to write the judge into (model.onnx, tokenizer, judge.json)."),
    data: Optional[Path] = typer.Option(None, "--data", parser=given_path, help="The shared data folder (default: ../shared/data "
                                                             "beside the project)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Use only the first N questions of each file."),
    epochs: int = typer.Option(1, "--epochs", min=1, max=20),
    seed: int = typer.Option(0, "--seed"),
    lr: float = typer.Option(5e-5, "--lr", help="AdamW peak learning rate."),
    max_length: int = typer.Option(192, "--max-length", min=32, max=512, help="Tokens per (question, passage)."),
    threads: int = typer.Option(2, "--threads", min=1, max=64, help="torch threads while training."),
) -> None:
    """Train the passage-relevance judge (MiniLM cross-encoder, int8 ONNX) from HotpotQA, MuSiQue and
    2Wiki support labels, calibrate its keep-threshold on held-apart questions.

    Example: assistant judge train-relevance --out models/relevance_judge_model
    """
    import time

    from models.config import load_settings

    from research import judge_service

    settings = load_settings()
    started = time.perf_counter()

    def progress(step: int, total: int, loss: float) -> None:
        if step == 1 or step % 10 == 0 or step == total:
            typer.echo(f"  step {step}/{total}  loss {loss:.4f}  {time.perf_counter() - started:.0f}s", err=True)

    result = judge_service.train_relevance_judge(
        settings, data or _default_shared_data(), out, limit=limit,
        on_progress=lambda line: typer.echo(f"  {line}", err=True), on_step=progress,
        epochs=epochs, lr=lr, max_length=max_length, seed=seed, threads=threads)
    held = result.settings["held_out"]
    typer.echo(f"trained on {result.train.pairs} pairs: {result.train.steps} steps in {result.train.seconds:.0f}s, "
               f"loss {result.train.first_loss:.3f} -> {result.train.last_loss:.3f}")
    typer.echo(f"held apart: {held['questions']} questions; keep-threshold {result.settings['threshold']:.3f} "
               f"(precision {held['threshold']['precision']:.2f}, recall {held['threshold']['recall']:.2f})")
    typer.echo("  all supporting paragraphs found: " + ", ".join(
        f"{name} {100 * share:.0f}%" for name, share in held["all_support_found"].items()))
    typer.echo(f"judge: {result.folder}")
    # the selector and the chain scorer were fitted on the old judge's scores: judge.json no longer names them
    typer.echo("note: this judge has no passage selector or chain scorer yet (the default strategy reads "
               f"them): run `assistant judge train-selector --judge {result.folder}`, then "
               f"`lab/chain_recall.py --write {result.folder}`")


@judge_app.command("train-selector")
def train_selector(
    judge: Optional[Path] = typer.Option(None, "--judge", parser=given_path, help="The relevance judge folder to add the selector to "
                                                               "(default: the shipped one)."),
    data: Optional[Path] = typer.Option(None, "--data", parser=given_path, help="The shared data folder (default: ../shared/data "
                                                             "beside the project)."),
    expansions: int = typer.Option(2, "--expansions", min=0, max=5, help="Extra searches per question (question + "
                                                                          "one of the top passages)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Use only the first N questions of each file."),
    seed: int = typer.Option(0, "--seed"),
    cache: Optional[Path] = typer.Option(None, "--cache", parser=given_path, help="A JSON file of searched pools: reused, and "
                                                               "filled with new ones (searching is the slow part)."),
) -> None:
    """Train the second-stage passage selector (gradient-boosted trees over pool features: search rank,
    question coverage, titles named in the question or in other top passages) and write it beside the
    relevance judge (selector.json, named in its judge.json).

    Example: assistant judge train-selector --judge models/relevance_judge_model
    """
    from models.config import load_settings
    from models.judges.relevance import check_folder, shipped_judge_path

    from research import judge_service

    settings = load_settings()
    # bad paths are one line before the embedder's slow load
    folder = check_folder(judge or shipped_judge_path())
    shared = judge_service.check_training_data(data or _default_shared_data())
    result = judge_service.train_selector(settings, shared, folder, say=lambda line: typer.echo(f"  {line}", err=True),
                                         seed=seed, expansions=expansions, limit=limit, cache=cache)
    found = result.spec["out_of_fold"]["all_support_found"]
    typer.echo(f"selector: {result.path} (threshold {result.spec['threshold']:.2f})")
    typer.echo("  out-of-fold, all supporting paragraphs found: " + ", ".join(
        f"{name} {100 * share:.0f}%" if name != "mean kept" else f"{name} {share:.1f}"
        for name, share in found.items()))
    sufficient = result.spec["sufficient"]
    typer.echo(f"  sufficiency: rank-{sufficient['rank']} score >= {sufficient['threshold']:.2f} on "
               f"{100 * sufficient['share_sufficient']:.0f}% of questions (all support kept for "
               f"{100 * (sufficient['complete_when_sufficient'] or 0):.0f}% of them)")


@judge_app.command("score")
def score(
    question: str = typer.Argument(..., help="The question."),
    passages: list[str] = typer.Argument(..., help="Passages to judge (each one argument)."),
    model: Optional[Path] = typer.Option(None, "--model", parser=given_path, help="A relevance judge folder (default: the shipped one)."),
) -> None:
    """Print the relevance judge's P(relevant) for each passage, best first, and its keep-threshold.

    Example: assistant judge score "Who founded X?" "X was founded by Y." "Z is a river."
    """
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    judge = RelevanceJudge(model or shipped_judge_path())
    scores = judge.score(question, passages)
    for value, text in sorted(zip(scores, passages), key=lambda pair: -pair[0]):
        mark = "keep" if value >= judge.threshold else "drop"
        typer.echo(f"{value:.3f}  {mark}  {text[:100]}")
    typer.echo(f"threshold {judge.threshold:.3f} ({judge.name})")
