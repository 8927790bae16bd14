"""`assistant ask QUESTION`: answer with citations; --trace for the steps, --json for events."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from typer.core import TyperCommand

from models.config import JUDGE_KINDS, RELEVANCE_JUDGE_KINDS, allowed, either

from ..strategies.settings import METHODS
from .ctrl_c import stop_on_ctrl_c
from .paths import given_path

ask_app = typer.Typer()  # mounted by main.py
K, DEPTH = allowed("k"), allowed("depth")


def checked_question(question: str) -> str:
    """The question, or an error when it is not UTF-8 text.

    Undecodable argv bytes reach Python as lone surrogates ("\\udcff" for the byte 0xff). They
    are refused rather than replaced: a question in another encoding (say Latin-1) would lose
    every accented letter, and the reader would answer a question the user did not ask.
    """
    from models.errors import AssistantError

    try:
        question.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(question[exc.start])
        what = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        raise AssistantError(f"the question is not UTF-8 text (it holds {what} at character "
                             f"{exc.start + 1}); set the terminal to UTF-8 and ask again") from None
    return question


class _TraceFullCommand(TyperCommand):
    """Reads `--trace=full` as the flag --trace-full (click would read it as --trace given a value)."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, ["--trace-full" if arg == "--trace=full" else arg for arg in args])


@ask_app.command(cls=_TraceFullCommand)
def ask(
    question: str = typer.Argument(..., help="The question to answer."),
    strategy: Optional[str] = typer.Option(None, "--strategy", "-s",
                                           help="direct, rag, ra-isf, ... with options: 'ra-isf:relevance=false'."),
    k: Optional[int] = typer.Option(None, "--k", min=K.low, max=K.high, help="Passages per retrieval."),
    depth: Optional[int] = typer.Option(None, "--depth", min=DEPTH.low, max=DEPTH.high,
                                        help="RA-ISF decomposition depth bound."),
    index: Optional[Path] = typer.Option(None, "--index", parser=given_path, help="Index folder (default: in the user data dir)."),
    collection: Optional[str] = typer.Option(None, "--collection", "-c",
                                             help="Search only this collection (default: all of them)."),
    reader: Optional[Path] = typer.Option(None, "--reader", parser=given_path, help="Reader model: a .gguf file."),
    judge: Optional[str] = typer.Option(None, "--judge",
                                        help=f"Judge: {either(JUDGE_KINDS)} (the prompted reader, an ONNX T5)."),
    relevance_judge: Optional[str] = typer.Option(
        None, "--relevance-judge", help=f"Passage relevance: {either(RELEVANCE_JUDGE_KINDS)}: the shipped judge and "
                                        "passage selector rank a wide pool (the default), or the --judge above."),
    drafts: Optional[int] = typer.Option(None, "--drafts", min=1, max=METHODS.max_drafts,
                                         help="ReFeed (-s refeed): number of drafts (1 = greedy only, no diverse "
                                              "feedback)."),
    ensemble: bool = typer.Option(True, "--ensemble/--no-ensemble",
                                  help="ReFeed (-s refeed, and the default's check): keep the draft when it is "
                                       "likelier than the refinement."),
    trace: bool = typer.Option(False, "--trace", help="Print each step as it happens, one line each."),
    trace_full: bool = typer.Option(False, "--trace=full", "--trace-full",
                                    help="The steps, and every passage found and every judge verdict."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per event; the answer last."),
    thread: Optional[str] = typer.Option(None, "--thread", "-t",
                                         help="Ask in this conversation (created on first use): a follow-up "
                                              "such as 'Who founded it?' is rewritten from its earlier turns."),
    local: bool = typer.Option(False, "--local", help="Load the models here even when `assistant serve` runs."),
) -> None:
    """Answer a question from the reader's knowledge, your index and sub-questions.

    Example: assistant ask "Who wrote the onboarding guide?" --trace
    """
    from models.config import load_settings
    from models.errors import AssistantError

    from .. import service
    from ..demo_notice import demo_reader_notice
    from ..strategies import DEFAULT_STRATEGY, make_strategy
    from ..conversation.threads import checked_name
    from ..server.client import running_server
    from .conversation import question_events, show, status_line
    from .open_source import remember

    started = time.time()  # a thread's damaged lines set aside from now on are said after the answer
    if not checked_question(question).strip():
        raise AssistantError('the question is empty; ask something, e.g. assistant ask "What is X?"')
    settings = load_settings(k=k, depth=depth, index=index, reader=reader, judge=judge,
                             relevance_judge=relevance_judge, collection=collection)
    spec = DEFAULT_STRATEGY if strategy is None else strategy  # -s '' names no strategy: an error
    chosen = make_strategy(spec)  # a bad spec: said before models load
    flags = chosen.refeed_flags(drafts, ensemble)
    chosen = chosen.with_options(**flags)
    if thread is not None:
        checked_name(thread)
    # The server has its own models: a question for other ones (or with ReFeed flags) runs here.
    here = local or any(x is not None for x in (k, depth, index, reader, judge, relevance_judge, drafts)) \
        or not ensemble
    server = None if here else running_server(settings)  # probed once: question_events is told
    status = status_line(trace or trace_full, as_json)  # before the models load: seconds on a laptop
    # with --trace the steps are lines of their own: "Getting ready…" shows only while loading
    loading = status if status.enabled and status.steps else status_line(False, as_json)
    with stop_on_ctrl_c("stopping the answer", loading=True) as should_stop:
        # in this process the models load first, where a Ctrl-C stops at once
        try:
            ctx = service.prepare(settings, chosen) if server is None else None
        except BaseException:
            loading.clear()  # an error's line (or the Ctrl-C note) starts on its own
            raise
        if loading is not status:
            loading.clear()  # the trace's lines start on their own
        should_stop.loaded()
        events = question_events(question, chosen, spec, settings, thread, server is None,
                                 should_stop=should_stop, context=ctx, server=server)
        answer = show(events, trace or trace_full, as_json, full=trace_full, status=status)
    remember(settings.data_dir, answer)  # for `assistant open N`
    if thread is not None:
        from ..conversation.chat import threads as thread_store

        if aside := thread_store(settings).set_aside_since(thread, started):
            typer.echo(f"note: {aside}", err=True)
    notice = demo_reader_notice(settings)  # after an answer: an error stays one line
    if notice:
        typer.echo(notice, err=True)
