"""A bare yes/no answer decided again by the reader's odds against its measured lean to yes
(assistant/checks/yes_no.py): which answers are weighed, which readers have a lean, what the steps and the
eval record say, and the option that turns it off."""
import json
import math

import pytest
from helpers.fakes import FakeReader, FakeRetriever, make_context

from index_builder.datasets import QAExample
from research.evaluation.results import make_record
from assistant.events.core import Answer
from assistant.runner import run_question
from assistant.presentation.step_text import StepNarrator, resolved_phrase
from assistant.strategies import make_strategy
from assistant.checks.yes_no import bare_yes_no, log_odds_yes
from models.downloads.catalog import CatalogEntry, load_catalog, yes_lean_of

QUESTION = "Are Alpha and Beta both novelists?"  # nothing the nationality check would decide
MEASURED = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"  # the catalog reader whose lean was measured


def odds_reader(answer: str, p_yes: float, p_no: float, path: str | None = MEASURED) -> FakeReader:
    """A reader writing `answer` whose first-token probabilities of Yes/No are p_yes/p_no (its
    lower-case forms a tenth of those)."""
    table = {"Yes": p_yes, "yes": p_yes / 10, "No": p_no, "no": p_no / 10}
    reader = FakeReader(answer=lambda prompt: answer, option_logprob=lambda prompt, option: math.log(table[option]))
    if path is not None:
        reader.path = f"/models/{path}"
    return reader


def ask(reader, spec: str = "default"):
    retriever = FakeRetriever({"alpha": "Alpha is a novelist and critic.", "beta": "Beta is a poet."})
    events = list(run_question(QUESTION, make_strategy(spec), make_context(reader=reader, retriever=retriever)))
    return events, events[-1]


@pytest.mark.parametrize("text, bare", [("Yes", "Yes"), ("no.", "No"), (" YES ", "Yes"), ("Yes, both are", None),
                                        ("unknown", None), ("Norway", None), ("", None)])
def test_only_a_bare_yes_or_no_is_weighed(text, bare):
    assert bare_yes_no(text) == bare


def test_the_lean_is_the_catalogs_for_that_reader_file_only():
    assert yes_lean_of(f"/anywhere/{MEASURED.upper()}") == pytest.approx(3.4)
    assert yes_lean_of("/anywhere/renamed.gguf") is None
    unmeasured = [e for e in load_catalog() if e.is_reader and e.yes_lean == 0]
    assert unmeasured and yes_lean_of(unmeasured[0].files[0]) is None
    one = [CatalogEntry(name="r", role="reader", repo="o/r", files=("r.gguf",), size_gb=1, ram_gb=2, licence="x",
                        quality="x", yes_lean=1.5)]
    assert yes_lean_of("r.gguf", one) == 1.5


def test_log_odds_add_both_cases_of_each_word():
    reader = odds_reader("Yes", p_yes=0.5, p_no=0.25)
    assert log_odds_yes(reader, [{"role": "user", "content": "q"}]) == pytest.approx(math.log(0.55 / 0.275))


def test_a_yes_under_the_lean_becomes_no_and_says_why():
    events, answer = ask(odds_reader("Yes", p_yes=0.6, p_no=0.3))  # log-odds 0.69, lean 3.4
    assert isinstance(answer, Answer) and answer.text == "No"
    assert answer.resolved_by.endswith("+yes/no")
    check = next(e for e in events if e.type == "detail" and e.kind == "yes_no.check")
    assert (check.answer, check.decided, check.lean) == ("Yes", "No", pytest.approx(3.4))
    assert check.log_odds == pytest.approx(math.log(0.66 / 0.33), abs=1e-3)
    lines = [StepNarrator(numbers=True).line(e) for e in events]  # --trace=full
    assert "“Yes” became “No”: the reader's log-odds of yes over no, 0.69, are not above its lean to yes (3.4)" in lines
    plain = [StepNarrator().line(e) for e in events]  # --trace and the app: in words
    assert "“Yes” became “No”: the reader leans to yes here less than it does on any question" in plain
    assert "its yes/no turned by the reader's odds" in resolved_phrase(answer.resolved_by)
    record = make_record(QAExample(id="q", question=QUESTION, answers=["no"]), events, 1.0)
    assert record["yes_no"]["answer"] == "Yes" and record["prediction"] == "No" and record["scores"]["em"] == 1.0


def test_a_yes_above_the_lean_stands():
    events, answer = ask(odds_reader("Yes", p_yes=0.97, p_no=0.01))  # log-odds 4.57
    assert answer.text == "Yes" and not answer.resolved_by.endswith("+yes/no")
    check = next(e for e in events if e.type == "detail" and e.kind == "yes_no.check")
    assert check.decided == "Yes" and check.summary.startswith("Kept “Yes”")


def test_a_no_above_the_lean_becomes_yes():
    _, answer = ask(odds_reader("No", p_yes=0.97, p_no=0.01))
    assert answer.text == "Yes"


@pytest.mark.parametrize("reader, spec", [
    (odds_reader("Yes", 0.6, 0.3, path=None), "default"),  # a reader with no measured lean
    (odds_reader("Yes", 0.6, 0.3, path="other-reader.gguf"), "default"),
    (odds_reader("Yes", 0.6, 0.3), "default:yes_no=false"),  # the ablation
])
def test_no_lean_or_the_option_off_leaves_the_answer_as_written(reader, spec):
    events, answer = ask(reader, spec)
    assert answer.text == "Yes"
    assert not any(e.type == "detail" and e.kind in ("yes_no.check",) for e in events)
    assert not any(getattr(e, "module", "") == "yes/no" for e in events)


def test_an_unknown_or_a_longer_answer_is_not_weighed():
    for text in ("unknown", "Yes, both are writers"):
        events, answer = ask(odds_reader(text, 0.6, 0.3))
        assert answer.text == text
        assert not any(getattr(e, "kind", "") == "yes_no.check" for e in events)


def test_the_lab_measure_reads_recorded_checks_without_a_reader(tmp_path, capsys):
    """lab/yes_no_lean.py on a run made with the check: the log-odds come from the records."""
    from lab.yes_no_lean import auc, main

    rows = [("yes", "Yes", "Yes", 4.0), ("no", "No", "Yes", 1.0), ("no", "Yes", "Yes", 3.6), ("yes", "unknown", None, 0)]
    with open(tmp_path / "run.jsonl", "w") as out:
        for i, (gold, prediction, written, odds) in enumerate(rows):
            check = {"answer": written, "log_odds": odds, "lean": 3.4, "decided": prediction} if written else None
            out.write(json.dumps({"id": str(i), "question": "q?", "gold": [gold], "prediction": prediction,
                                  "yes_no": check, "read": []}) + "\n")
    # the unknown answer has no recorded odds: it needs the reader, so leave it out here
    lines = (tmp_path / "run.jsonl").read_text().splitlines()[:3]
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n")
    assert main([str(tmp_path / "run.jsonl"), "--reader", "unused.gguf", "--leans", "0,3.4,3.8"]) == 0
    printed = capsys.readouterr().out
    assert "3 yes/no questions, 3 answered yes or no" in printed
    assert "as written: 1 right" in printed and "lean 0: 1 right" in printed
    assert "lean 3.4: 2 right" in printed and "lean 3.8: 3 right" in printed
    assert auc([(4.0, True), (1.0, False), (3.6, False)]) == 1.0 and auc([(1.0, True)]) is None


def test_a_damaged_catalog_leaves_the_answer_as_written(monkeypatch):
    from models.errors import ModelError
    import models.downloads.catalog as catalog

    def damaged(*args, **kwargs):
        raise ModelError("the model catalog is damaged")

    monkeypatch.setattr(catalog, "load_catalog", damaged)
    _, answer = ask(odds_reader("Yes", 0.6, 0.3))
    assert answer.text == "Yes"


def test_the_lab_measure_says_what_is_wrong_in_one_line(tmp_path, capsys):
    from lab.yes_no_lean import main

    missing = str(tmp_path / "missing.jsonl")
    for argv, said in (([missing, "--reader", "r.gguf"], "missing.jsonl is no readable results file"),
                       ([missing, "--reader", "r.gguf", "--leans", "a,b"], "--leans wants numbers separated by commas")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert stop.value.code == 2 and said in last and "Traceback" not in last
