"""Run strategies over a dataset: one resumable results file per strategy, then a summary.

Strategies are looked up by name in the strategy registry, so strategies added later (and
ablation specs such as "ra-isf:self_knowledge=false") work with no change here.
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from models.config import Settings
from models.errors import AssistantError, NoIndex

from assistant.runner import build_context, run_question
from assistant.strategies import STRATEGIES, make_strategy
from assistant.strategies.base import Strategy
from index_builder.datasets import QAExample
from .report import Summary, summarize
from .results import ResultsFile, error_record, make_record, peak_rss_mb
from .support import hiding_support

# Called after each question: (strategy spec, questions done, total, last record).
OnQuestion = Callable[[str, int, int, dict], None]


def split_specs(text: str) -> list[str]:
    """ "direct,rag,ra-isf:depth=1,relevance=false" -> ["direct", "rag", "ra-isf:depth=1,relevance=false"].

    A comma-separated item starts a new strategy when its name is a known strategy; otherwise
    it is one more option of the strategy before it. ';' always separates strategies.
    """
    specs: list[str] = []
    for group in text.split(";"):
        for item in (x.strip() for x in group.split(",")):
            if not item:
                continue
            name = item.split(":", 1)[0].strip()
            if specs and name not in STRATEGIES and ("=" in item or ":" not in item) and ":" in specs[-1]:
                specs[-1] += "," + item
            else:
                specs.append(item)
    if not specs:
        raise AssistantError("no strategy given; e.g. --strategy direct,rag,ra-isf")
    for spec in specs:
        make_strategy(spec)  # unknown names and options fail now, not after hours of running
    return specs


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=_-]+", "_", text).strip("_")


@dataclass
class RunPlan:
    """What identifies a run: results made with other settings must not be mixed in."""

    dataset: Path
    out_dir: Path
    settings: Settings
    corpus: str  # "none" or the index path
    reader_name: str
    drop_support: bool = False  # hide each question's supporting paragraphs from its searches


    def results_path(self, spec: str) -> Path:
        dropped = "__drop-support" if self.drop_support else ""
        return self.out_dir / f"{slug(spec)}__{slug(self.reader_name)}{dropped}.jsonl"

    def config(self, spec: str) -> dict:
        s = self.settings
        config = {"dataset": str(self.dataset.resolve()), "strategy": spec, "reader": self.reader_name,
                  "k": s.k, "depth": s.depth, "judge": s.judge, "corpus": self.corpus,
                  "max_reader_calls": s.max_reader_calls, "max_answer_tokens": s.max_answer_tokens}
        if self.drop_support:  # only then: earlier results files stay resumable
            config["drop_support"] = True
        if make_strategy(spec).reads_relevance_judge:  # only then: older rag results stay resumable
            config.update(relevance_judge=s.relevance_judge, pool=s.pool, min_passages=s.min_passages,
                          max_passages=s.max_passages)
        return config


def _check_config(plan: RunPlan, spec: str) -> None:
    """A results file is resumed only with the same settings; its config sits beside it."""
    path = plan.results_path(spec).with_suffix(".config.json")
    config = plan.config(spec)
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            old = None
        if old != config:
            changed = sorted(k for k in config if not old or old.get(k) != config[k])
            raise AssistantError(f"{plan.results_path(spec)} holds results made with other settings "
                                 f"({', '.join(changed)}); choose another --out or delete it")
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(config, indent=1), encoding="utf-8")
        except OSError as exc:
            raise AssistantError(f"cannot write {path}: {exc.strerror or exc}; choose another --out") from None


def run_strategy(spec: str, examples: Sequence[QAExample], plan: RunPlan,
                 on_question: OnQuestion | None = None, context_factory=build_context) -> Summary:
    """Answer every example not yet in the results file; returns the summary of all of them."""
    strategy: Strategy = make_strategy(spec)
    if strategy.needs_index and plan.corpus == "none":
        raise NoIndex(f"strategy '{spec}' needs an index: this dataset has no paragraphs, so "
                           "name one with --corpus INDEX")
    _check_config(plan, spec)
    results = ResultsFile(plan.results_path(spec))
    todo = [e for e in examples if not results.done(e.id)]
    done = len(examples) - len(todo)
    if todo:
        ctx = context_factory(plan.settings, strategy)
        searched = ctx.retriever
        for example in todo:
            started = time.perf_counter()
            ctx.retriever = hiding_support(searched, example) if plan.drop_support else searched
            try:
                events = list(run_question(example.question, strategy, ctx))
                record = make_record(example, events, peak_rss_mb())
            except AssistantError as exc:  # one bad question must not end a long run
                record = error_record(example, str(exc), round(time.perf_counter() - started, 3))
            results.append(record)
            done += 1
            if on_question:
                on_question(spec, done, len(examples), record)
    return summarize(spec, records_of(results, examples))


def records_of(results: ResultsFile | Path, examples: Sequence[QAExample]) -> list[dict]:
    """The records of these examples in a results file."""
    if not isinstance(results, ResultsFile):
        results = ResultsFile(results)
    wanted = {e.id for e in examples}
    return [r for r in results.records.values() if r["id"] in wanted]
