"""`ask --trace` in plain language: one line per step in words (passages, verdicts, scores and
thresholds only with --trace=full, numbers printed so that they agree with the comparison), and
files named by their whole path inside the indexed folder, with the folder for a top-level file."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.cli.render import TraceWriter
from assistant.events.details import YesNoCheck
from assistant.presentation.step_text import StepNarrator
from assistant.events.core import Passage, Relevance, Retrieved, Started
from assistant.presentation.step_text import ordinal, passage_name, relevance_summary, score_vs

POOL = [Passage(id=f"p{i}", text=f"Heron fact {i}.", path=f"projects/heron-{i}.md", source="/docs", score=0.03)
        for i in range(1, 6)]


def _run(full: bool) -> list[str]:
    events = [Started(step=1, question="Who leads Heron?", strategy="default"),
              Retrieved(step=2, query="Who leads Heron?", passages=POOL)]
    scores = [0.031, 0.5, 0.0199, 0.01, 0.005]  # p2 best; the bar 0.02: two at or above it
    order = sorted(range(5), key=lambda i: -scores[i])
    for after, i in enumerate(order, 1):
        events.append(Relevance(step=3 + after, question="Who leads Heron?", passage_id=POOL[i].id,
                                relevant=after <= 3, score=scores[i], judge="trained + selector",
                                rank_before=i + 1, rank_after=after, threshold=0.02))
    events.append(Started(step=20, question="next", strategy="default"))
    writer = TraceWriter(full=full)
    return [line for event in events for line in writer.lines(event)]


def test_the_short_trace_is_one_line_per_step_naming_what_was_kept_and_why():
    lines = _run(full=False)
    assert len(lines) == 4, lines
    assert lines[1] == "Looked up 5 passages for “Who leads Heron?”"
    assert lines[2] == "Kept 3 of 5 passages: projects/heron-2.md, projects/heron-1.md, projects/heron-3.md"
    assert "score" not in " ".join(lines) and "#" not in " ".join(lines) and "0.02" not in " ".join(lines)


def test_the_full_trace_lists_passages_and_verdicts_in_words():
    lines = _run(full=True)
    assert "  1. projects/heron-1.md: Heron fact 1." in lines
    assert "search score" not in "\n".join(lines)
    assert "  ✓ projects/heron-2.md: judged 1st (search: 2nd), score 0.50 ≥ 0.02" in lines
    assert "  ✓ projects/heron-3.md: judged 3rd (same as the search), score 0.0199 < 0.0200" in lines
    assert "Kept 3 of 5 passages (the best 3: 2 scored ≥ 0.02, and the reader reads at least 3)" in lines


def test_printed_scores_never_contradict_the_comparison():
    for score, bar in ((0.0199, 0.02), (0.02, 0.02), (0.2449, 0.245), (0.24999, 0.25), (0.9, 0.5)):
        text = score_vs(score, bar)
        a, sign, b = text.removeprefix("score ").split(" ")
        assert (sign == "≥") == (score >= bar)
        assert (float(a) >= float(b)) == (sign == "≥"), text
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]


def test_files_are_named_by_their_whole_path_in_the_folder():
    assert passage_name(Passage(id="x", text="", path="projects/heron.md")) == "projects/heron.md"
    assert passage_name(Passage(id="x", text="", path="a/b/c.pdf", page=3)) == "a/b/c.pdf, page 3"
    assert passage_name(Passage(id="x", text="", title="Heron (bird)")) == "Heron (bird)"


def test_a_top_level_file_is_named_with_its_folder():
    """Three packages' LICENSE files are told apart; an article from a dump keeps its title."""
    assert passage_name(Passage(id="x", text="", path="LICENSE", source="/usr/share/doc/bash")) == "bash/LICENSE"
    assert passage_name(Passage(id="x", text="", path="LICENSE", source="/src/tmux/LICENSE")) == "tmux/LICENSE"
    assert passage_name(Passage(id="x", text="", path="Heron", title="Heron",
                                source="/data/enwiki.xml.bz2")) == "Heron"


def test_the_yes_no_check_is_said_without_log_odds():
    event = YesNoCheck(step=3, summary="raw", answer="Yes", log_odds=2.15, lean=3.4, decided="No")
    plain, full = StepNarrator().line(event), StepNarrator(numbers=True).line(event)
    assert plain == "“Yes” became “No”: the reader leans to yes here less than it does on any question"
    assert "2.15" in full or full == "raw"


RAW_NUMBER = re.compile(r"\d\.\d\d|score|threshold|log-odds|[≥<>]")


@pytest.mark.real_models
def test_the_default_trace_on_the_example_docs_shows_no_raw_number(tmp_path):
    """The user's own first run: examples/docs indexed, a question asked with --trace (the
    bundled models). No score, threshold or log-odds in any line; --trace=full keeps them."""
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(tmp_path), "ASSISTANT_CONFIG": os.devnull, "HF_HUB_OFFLINE": "1"}
    docs = Path(__file__).resolve().parents[2] / "examples" / "docs"
    run = [sys.executable, "-m", "assistant"]
    subprocess.run([*run, "index", "add", str(docs)], env=env, check=True, capture_output=True, timeout=600)
    out = subprocess.run([*run, "ask", "What is the meeting room on the third floor called?", "--trace"],
                         env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    steps = out.stdout.split("\n\n")[0].splitlines()  # the trace, before the answer and its sources
    assert any("Looked up" in line for line in steps), out.stdout
    assert [line for line in steps if RAW_NUMBER.search(line.split("“")[0])] == [], out.stdout
    # README's first command: the answer cites the passage that holds it, and nothing else
    answer = out.stdout.split("\n\n", 1)[1]
    assert "Puffin" in answer and "[1]" in answer and "[2]" not in answer, answer
    assert "Offices" in answer and "Holidays" not in answer, answer


def test_a_yes_no_judge_summary_says_its_bar():
    verdicts = [Relevance(step=1, passage_id="a", relevant=True, score=0.8, threshold=0.5),
                Relevance(step=2, passage_id="b", relevant=False, score=0.2, threshold=0.5)]
    assert relevance_summary(verdicts) == "Kept 1 of 2 passages (judge score ≥ 0.50)"
