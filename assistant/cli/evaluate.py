"""`assistant eval DATASET --strategy a,b,c`: answer quality and cost of strategies on a dataset."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from models.config import JUDGE_KINDS, allowed, either

from .paths import given_path
from .progress import progress_bar

eval_app = typer.Typer()  # mounted by main.py

K, DEPTH = allowed("k"), allowed("depth")


def results_folder(out: Path) -> Path:
    """The results folder, created now: a bad --out fails before any model loads."""
    from models.errors import AssistantError

    if out.exists() and not out.is_dir():
        raise AssistantError(f"results folder {out} is a file; name a folder with --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AssistantError(f"cannot create results folder {out}: {exc.strerror or exc}; "
                             "name another with --out") from None
    return out


def _resolve_corpus(corpus: str, dataset: Path, data, specs, settings) -> str:
    """'pooled' -> the dataset's corpus index (built on first use), 'none', or an index folder.
    `data`: the questions read from `dataset` (the first --limit)."""
    from .. import service
    from ..strategies import make_strategy

    needs_index = any(make_strategy(s).needs_index for s in specs)
    if corpus not in ("pooled", "none"):
        service.check_index(Path(corpus))  # a mistyped folder is an error even when no strategy reads it
    if corpus == "none" or not needs_index:
        return "none"
    if corpus == "pooled":
        if not data.has_paragraphs() and not service.read_dataset(dataset).has_paragraphs():
            return "none"  # run_strategy explains that an index must be named
        bar, update = progress_bar()
        with bar:
            index, _ = service.add_dataset(settings, dataset, on_progress=update)
        return str(index)
    return str(service.check_index(Path(corpus)))  # fails clearly when there is no index there


def _exclude(examples, files: list[Path]):
    """The examples less those also in `files`, and a note saying how many left and why."""
    from models.errors import AssistantError

    from research.evaluation.question_set import questions_in, without

    if not files:
        return examples, ""
    kept = without(examples, questions_in(files))
    if not kept:
        raise AssistantError(f"--exclude leaves no question: all {len(examples)} appear in "
                             f"{', '.join(f.name for f in files)}")
    names = ", ".join(f.name for f in files)
    return kept, f"{len(examples) - len(kept)} of {len(examples)} questions left out: also in {names}"


@eval_app.command("eval")
def evaluate(
    dataset: Path = typer.Argument(..., parser=given_path, help="Dataset file: HotpotQA, MuSiQue, 2Wiki, NQ-open, TriviaQA, "
                                             "PopQA, WebQuestions or StrategyQA (see docs/evaluation.md)."),
    strategy: str = typer.Option("direct,rag,ra-isf", "--strategy", "-s",
                                 help="Comma-separated strategy specs, e.g. 'direct,rag,ra-isf:depth=1'."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", min=1, help="Only the first N questions."),
    reader: Optional[Path] = typer.Option(None, "--reader", parser=given_path, help="Reader model: a .gguf file."),
    k: Optional[int] = typer.Option(None, "--k", min=K.low, max=K.high, help="Passages per retrieval."),
    depth: Optional[int] = typer.Option(None, "--depth", min=DEPTH.low, max=DEPTH.high,
                                        help="RA-ISF depth bound."),
    judge: Optional[str] = typer.Option(None, "--judge", help=f"Judge: {either(JUDGE_KINDS)}."),
    out: Optional[Path] = typer.Option(None, "--out", parser=given_path, help="Results folder (default eval-runs/<dataset>)."),
    corpus: str = typer.Option("pooled", "--corpus",
                               help="'pooled' (the dataset's own paragraphs), 'none', or an index folder."),
    exclude: Optional[list[Path]] = typer.Option(
        None, "--exclude", help="Leave out questions (by id or text) that also appear in this dataset file, "
                                "after --limit; repeatable (e.g. a held-out file that must stay unseen)."),
    drop_support: bool = typer.Option(
        False, "--drop-support", help="Hide each question's own supporting paragraphs from its searches: "
                                      "nothing indexed answers it, so every answer should say so (honesty)."),
) -> None:
    """Evaluate strategies on a dataset: EM, F1, accuracy and cost, side by side.

    Results go to one JSONL per strategy; re-running skips questions already answered.
    Example: assistant eval hotpot.jsonl --strategy direct,rag,ra-isf --limit 100
    """
    from models import registry
    from models.config import load_settings
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    from research.evaluation.harness import RunPlan, records_of, run_strategy, split_specs
    from research.evaluation.report import markdown_report
    from research.evaluation.trust import trust, trust_table

    from .. import service

    specs = split_specs(strategy)
    data = service.read_dataset(dataset, limit)
    examples, excluded_note = _exclude(data.examples, exclude or [])
    settings = load_settings(reader=reader, k=k, depth=depth, judge=judge)
    out_dir = results_folder(out or Path("eval-runs") / dataset.stem)
    reader_name = registry.reader_path(settings).stem
    corpus_index = _resolve_corpus(corpus, dataset, data, specs, settings)
    if corpus_index != "none":
        settings = settings.with_overrides(index=corpus_index)
    plan = RunPlan(dataset=dataset, out_dir=out_dir, settings=settings, corpus=corpus_index,
                   reader_name=reader_name, drop_support=drop_support)

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("EM {task.fields[em]}"), TimeElapsedColumn(), TimeRemainingColumn())
    summaries = []
    with bar:
        for spec in specs:
            task = bar.add_task(spec, total=len(examples), em="-")
            hits = []

            def on_question(_spec, done, total, record, task=task, hits=hits):
                hits.append(record["scores"]["em"])
                bar.update(task, completed=done, em=f"{100 * sum(hits) / len(hits):.1f}")

            summaries.append(run_strategy(spec, examples, plan, on_question))
            bar.update(task, completed=len(examples))
    corpus_note = "closed book" if corpus_index == "none" else f"corpus index {corpus_index}"
    if drop_support:
        corpus_note += ", each question's supporting paragraphs hidden (--drop-support)"
    trusts = [trust(spec, records_of(plan.results_path(spec), examples)) for spec in specs]
    report = markdown_report(
        f"{dataset.name}: {len(examples)} questions, reader {reader_name}", summaries,
        notes=[f"k={settings.k}, depth={settings.depth}, judge={settings.judge}, {corpus_note}"]
        + ([excluded_note] if excluded_note else [])
        + ([data.skipped_note(dataset.name)] if data.skipped else []),
        trust_rows=trust_table(trusts))
    (out_dir / f"summary__{reader_name}{'__drop-support' if drop_support else ''}.md").write_text(report, encoding="utf-8")
    typer.echo(report)
    typer.echo(f"results: {out_dir}")
