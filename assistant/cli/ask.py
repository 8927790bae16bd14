"""`assistant ask QUESTION`: answer with citations; --trace for the steps, --json for events."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from models.config import JUDGE_KINDS, RELEVANCE_JUDGE_KINDS, allowed, either

from ..strategies.refeed import MAX_DRAFTS

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


@ask_app.command()
def ask(
    question: str = typer.Argument(..., help="The question to answer."),
    strategy: Optional[str] = typer.Option(None, "--strategy", "-s",
                                           help="direct, rag, ra-isf, ... with options: 'ra-isf:relevance=false'."),
    k: Optional[int] = typer.Option(None, "--k", min=K.low, max=K.high, help="Passages per retrieval."),
    depth: Optional[int] = typer.Option(None, "--depth", min=DEPTH.low, max=DEPTH.high,
                                        help="RA-ISF decomposition depth bound."),
    index: Optional[Path] = typer.Option(None, "--index", help="Index folder (default: in the user data dir)."),
    reader: Optional[Path] = typer.Option(None, "--reader", help="Reader model: a .gguf file."),
    judge: Optional[str] = typer.Option(None, "--judge",
                                        help=f"Judge: {either(JUDGE_KINDS)} (the prompted reader, an ONNX T5)."),
    relevance_judge: Optional[str] = typer.Option(
        None, "--relevance-judge", help=f"Passage relevance: {either(RELEVANCE_JUDGE_KINDS)}: the shipped judge and "
                                        "passage selector rank a wide pool (the default), or the --judge above."),
    drafts: Optional[int] = typer.Option(None, "--drafts", min=1, max=MAX_DRAFTS,
                                         help="ReFeed (-s refeed): number of drafts (1 = greedy only, no diverse "
                                              "feedback)."),
    ensemble: bool = typer.Option(True, "--ensemble/--no-ensemble",
                                  help="ReFeed (-s refeed, and the default's check): keep the draft when it is "
                                       "likelier than the refinement."),
    trace: bool = typer.Option(False, "--trace", help="Print each step as it happens."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per event; the answer last."),
) -> None:
    """Answer a question from the reader's knowledge, your index and sub-questions.

    Example: assistant ask "Who wrote the onboarding guide?" --trace
    """
    from models.config import load_settings
    from models.errors import AssistantError

    from .. import service
    from ..demo_notice import demo_reader_notice
    from ..events import Answer, Token
    from ..strategies import DEFAULT_STRATEGY, make_strategy
    from .render import TraceWriter, answer_block

    if not checked_question(question).strip():
        raise AssistantError('the question is empty; ask something, e.g. assistant ask "What is X?"')
    settings = load_settings(k=k, depth=depth, index=index, reader=reader, judge=judge,
                             relevance_judge=relevance_judge)
    spec = DEFAULT_STRATEGY if strategy is None else strategy  # -s '' names no strategy: an error
    chosen = make_strategy(spec)  # a bad spec: said before models load
    chosen = chosen.with_options(**chosen.refeed_flags(drafts, ensemble))
    steps = TraceWriter()
    for event in service.ask(question, chosen, settings):
        if as_json:
            if not isinstance(event, Token):
                typer.echo(json.dumps(event.to_dict(), ensure_ascii=False))
            continue
        lines = steps.lines(event)  # also notes whether a check changed the answer
        if trace:
            for line in lines:
                typer.echo(line)
        if isinstance(event, Answer):
            if trace:
                typer.echo("")
            typer.echo(answer_block(event, steps.narrator.revised))
    notice = demo_reader_notice(settings)  # after an answer: an error stays one line
    if notice:
        typer.echo(notice, err=True)
