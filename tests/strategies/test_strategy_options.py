"""Strategy options are declared once (assistant/strategies/options.py): the strategy table of
docs/strategies.md matches the declarations, and every kind of bad value is one clear line in `ask`, `eval` and the
app's settings screen, never a traceback or a silent default."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from helpers.cli_run import cli, one_error_line  # noqa: F401  (cli is a fixture)
from helpers.tui_backend import FakeBackend
from textual.widgets import Input, Select, Static

from assistant.strategies import STRATEGIES, make_strategy
from models.errors import OptionError
from tui.app import AssistantApp

STRATEGY_DOC = Path(__file__).resolve().parents[2] / "docs" / "strategies.md"

# (spec, what the one line must say): wrong type, out of range, unknown value, unknown option,
# unknown or missing strategy name, and the one rule across two options
BAD_SPECS = [
    ("ra-isf:depth=x", "option depth takes a whole number from 0 to 6, not 'x'"),
    ("ra-isf:depth=-5", "option depth takes a whole number from 0 to 6, not '-5'"),
    ("default:hop=sometimes", "option hop takes one of auto, always, never"),
    ("ra-isf:relevance=maybe", "option relevance takes true or false, not 'maybe'"),
    ("rag:rerank=2", "option rerank takes true or false"),
    ("refeed:drafts=0", "option drafts takes a whole number from 1 to 20, not '0'"),
    ("rq-rag:select=best", "option select takes one of perplexity, confidence, ensemble, not 'best'"),
    ("rq-rag:actions=rewrite+jump", "option actions takes rewrite+decompose+disambiguate or a part of it"),
    ("rq-rag:search=never", "option search takes one of auto, always"),
    ("llmqa:window=100", "option window takes a whole number from 2 to 30"),
    ("llmqa:window=3,step=3", "option step (3) must be smaller than window (3)"),
    ("rag:depth=2", "strategy 'rag' has no option depth (options: rerank)"),
    ("direct:k=3", "strategy 'direct' has no option k (options: none)"),
    ("nope", "unknown strategy 'nope'"),
    ("", "no strategy named"),
]


@pytest.mark.parametrize("spec, expected", BAD_SPECS)
def test_a_bad_spec_is_one_option_error(spec, expected):
    with pytest.raises(OptionError) as caught:
        make_strategy(spec)
    assert expected in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("spec, expected", BAD_SPECS)
def test_ask_says_a_bad_spec_in_one_line(cli, spec, expected):  # noqa: F811
    assert expected in one_error_line(cli("ask", "Who leads Heron?", "--strategy", spec))


@pytest.mark.parametrize("spec, expected", BAD_SPECS)
def test_eval_says_a_bad_spec_in_one_line_before_reading_the_dataset(cli, tmp_path, spec, expected):  # noqa: F811
    line = one_error_line(cli("eval", str(tmp_path / "missing.jsonl"), "--strategy", f"direct;{spec}"
                              if spec else ""))
    assert (expected if spec else "no strategy given") in line


@pytest.mark.parametrize("spec, expected", [(s, e) for s, e in BAD_SPECS if s.split(":")[0] in STRATEGIES])
async def test_the_settings_screen_says_a_bad_spec_in_one_line(tmp_path, spec, expected):
    app = AssistantApp(FakeBackend(tmp_path))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press("f2")
        screen = app.screen
        name, _, options = spec.partition(":")
        screen.query_one("#strategy", Select).value = name
        screen.query_one("#options", Input).value = options
        await pilot.press("ctrl+s")
        assert app.screen is screen  # not applied
        shown = str(screen.query_one("#settings-error", Static).render())
        assert expected in shown and "\n" not in shown.strip()


def test_good_values_are_typed_and_aliases_accepted():
    rq = make_strategy("rq-rag:select=ppl,actions=rewrite+decompose,docs=5")
    assert (rq.opts.select, rq.opts.actions, rq.opts.docs) == ("perplexity", ("rewrite", "decompose"), 5)
    assert make_strategy("rq-rag:select=perplexity").opts.select == "perplexity"  # as docs/strategies.md writes it
    ra = make_strategy("ra-isf:self-knowledge=off,relevance=NO,depth=0")
    assert (ra.opts.self_knowledge, ra.opts.relevance, ra.opts.decomposition, ra.opts.depth) == (False, False, True, 0)
    assert make_strategy("ra-isf").opts.depth is None  # the depth setting decides
    assert make_strategy("default:hop=always,refine=false,keep=support").opts.hop == "always"
    assert make_strategy("default:hop=always").opts.changed() == {"hop": "always"}
    with pytest.raises(dataclasses.FrozenInstanceError):  # read by name, never changed in place
        make_strategy("default").opts.hop = "never"


def _documented_rows() -> dict[str, str]:
    """strategy name -> the options cell of the strategy table in docs/strategies.md."""
    rows = {}
    for line in STRATEGY_DOC.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 3 and cells[0].strip("`") in STRATEGIES:
            rows[cells[0].strip("`")] = cells[2]
    return rows


def _documented(cell: str, rows: dict[str, str]) -> dict[str, str]:
    """option name -> its parenthesised note in a cell ("those of `x`" takes x's options)."""
    found: dict[str, str] = {}
    for item in re.split(r"[,;]\s*(?![^()]*\))", cell):
        if (inherited := re.match(r"those of `([a-z-]+)`", item.strip())):
            found.update(_documented(rows[inherited.group(1)], rows))
        elif (option := re.match(r"`(\w+)`(?: \((.*)\))?$", item.strip())):
            found[option.group(1)] = option.group(2) or ""
    return found


def test_the_documented_strategy_table_matches_the_declarations():
    rows = _documented_rows()
    assert set(rows) == set(STRATEGIES)
    for name, cls in STRATEGIES.items():
        documented = _documented(rows[name], rows)
        assert set(documented) == set(cls.option_names()), name
        for option in cls.declared_options():
            note = documented[option.name]
            if option.default is not None:
                shown = str(option.default).lower() if option.kind is bool else option.default
                if option.subset and option.default == option.choices:
                    shown = "all"
                assert f"default {shown}" in note, (name, option.name, note)
            if option.kind is int:
                assert f"{option.low}-{option.high}" in note, (name, option.name, note)
            if option.choices:
                assert tuple(re.findall(r"`([\w-]+)`", note)) == option.choices, (name, option.name, note)
