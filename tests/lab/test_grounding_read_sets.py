"""Claim rows from recorded runs (issue 30): what the claim trees learn from the passages a run read,
and a refit of the claim trees alone that keeps the other models of grounding.json."""
import json

import numpy as np
import pytest

from index_builder.datasets import Paragraph, QAExample
from research.judge_training import grounding_train
from research.judge_training.grounding_read_sets import is_drop_support, read_set_rows
from research.judge_training.relevance_data import Question
from models.errors import AssistantError

OTTER = Paragraph("Project Otter", "Project Otter films kelp forests. Project Otter is led by Tomas Lindqvist.", True)
HERON = Paragraph("Project Heron", "Project Heron builds kits for schools. It is led by Mira Okafor.", False)
EXAMPLE = QAExample("q1", "Who leads Project Otter?", ["Tomas Lindqvist"], [OTTER, HERON])
QUESTIONS = {"q1": Question("train/file.json", EXAMPLE)}


def read(*paragraphs):
    return [{"id": p.title, "title": p.title, "text": p.text} for p in paragraphs]


def results(tmp_path, records, drop_support=False, name="default__reader"):
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    (tmp_path / f"{name}.config.json").write_text(json.dumps({"drop_support": drop_support}), encoding="utf-8")
    return path


def test_a_normal_run_labels_the_gold_page_holding_the_answer_and_nothing_for_a_wrong_answer(tmp_path):
    record = {"id": "q1", "prediction": "Mira Okafor", "scores": {"f1": 0.0}, "read": read(HERON, OTTER)}
    x, y, ids = read_set_rows(results(tmp_path, [record]), QUESTIONS)
    # the gold answer alone and as a sentence (two passages each), then the reader's wrong answer
    assert y == [0, 1, 0, 1, 0, 0] and len(x) == 6 and set(ids) == {"train/file.json#q1"}
    assert all(len(row) == len(grounding_train.CLAIM_FEATURES) for row in x)


def test_a_drop_support_run_gives_the_readers_answer_as_supported_nowhere(tmp_path):
    record = {"id": "q1", "prediction": "Mira Okafor", "scores": {"f1": 0.0}, "read": read(HERON)}
    path = results(tmp_path, [record], drop_support=True)
    assert is_drop_support(path)
    x, y, _ = read_set_rows(path, QUESTIONS)
    assert y == [0] and len(x) == 1  # no gold claim: a page that is not the question's may state it truly


def test_a_right_reader_answer_counts_like_the_gold_one_and_an_unclear_one_not_at_all(tmp_path):
    right = {"id": "q1", "prediction": "Lindqvist, Tomas", "scores": {"f1": 1.0}, "read": read(OTTER)}
    unclear = {"id": "q1", "prediction": "Tomas Okafor", "scores": {"f1": 0.5}, "read": read(OTTER)}
    _, y_right, _ = read_set_rows(results(tmp_path, [right], name="right"), QUESTIONS)
    _, y_unclear, _ = read_set_rows(results(tmp_path, [unclear], name="unclear"), QUESTIONS)
    assert y_right == [1, 1, 0]  # "Lindqvist, Tomas" is not written so on the page: no support by it
    assert y_unclear == [1, 1]


def test_records_of_other_questions_or_without_read_passages_are_skipped(tmp_path):
    records = [{"id": "report-question", "prediction": "x", "scores": {"f1": 0.0}, "read": read(OTTER)},
               {"id": "q1", "prediction": "x", "scores": {"f1": 0.0}}]
    path = results(tmp_path, records)
    path.write_text(path.read_text(encoding="utf-8") + "not json\n", encoding="utf-8")
    assert read_set_rows(path, QUESTIONS) == ([], [], [])


def test_without_a_config_the_file_name_tells_a_drop_support_run(tmp_path):
    path = tmp_path / "default__reader__drop-support.jsonl"
    path.write_text("", encoding="utf-8")
    assert is_drop_support(path) and not is_drop_support(tmp_path / "default__reader.jsonl")


def _tiny_training(monkeypatch):
    """grounding_train over a few made-up questions instead of the shared data."""
    questions = []
    for i in range(40):
        leader, other = f"Person{i} Lindqvist", f"Person{i} Okafor"
        example = QAExample(f"q{i}", f"Who leads Project Otter{i}?", [leader], [
            Paragraph(f"Project Otter{i}", f"Project Otter{i} films kelp. It is led by {leader}.", True),
            Paragraph(f"Project Heron{i}", f"Project Heron{i} builds kits. It is led by {other}.", False),
            Paragraph(f"Kelp{i}", f"Kelp films of Project Otter{i} were shown in {1990 + i}.", True)])
        questions.append(Question("train/file.json", example))
    monkeypatch.setattr(grounding_train, "check_data_dir", lambda data_dir: data_dir)
    monkeypatch.setattr(grounding_train, "training_questions", lambda data_dir: questions)
    return questions


def test_refitting_the_claim_trees_keeps_the_other_models_and_learns_from_read_sets(tmp_path, monkeypatch):
    questions = _tiny_training(monkeypatch)
    out = tmp_path / "model"
    out.mkdir()
    kept = {"hop": {"features": ["x"], "threshold": 0.3, "trees": "the hop trees"},
            "claim_encoder": {"features": ["y"], "threshold": 0.5, "trees": "the encoder's trees"}}
    (out / "grounding.json").write_text(json.dumps({"models": kept}), encoding="utf-8")
    records = [{"id": q.example.id, "prediction": q.example.paragraphs[1].text.split("by ")[1].rstrip("."),
                "scores": {"f1": 0.0}, "read": read(*q.example.paragraphs[:2])} for q in questions]
    run = results(tmp_path, records, drop_support=True)
    summary = grounding_train.train(tmp_path, out, read_sets=[run], models=("claim",))
    spec = json.loads((out / "grounding.json").read_text(encoding="utf-8"))
    assert spec["models"]["hop"] == kept["hop"] and spec["models"]["claim_encoder"] == kept["claim_encoder"]
    assert spec["models"]["claim"]["trees"] and set(summary) == {"claim"}
    assert spec["read_sets"] == [f"{tmp_path.name}/{run.name}"]
    assert "read_sets" in summary["claim"]  # the held-out questions' read-set rows, measured apart


def test_read_set_rows_join_only_their_own_questions(tmp_path):
    built = {"claim": (np.zeros((2, len(grounding_train.CLAIM_FEATURES))), np.asarray([0, 1]), ["a", "b"])}
    record = {"id": "q1", "prediction": "Mira Okafor", "scores": {"f1": 0.0}, "read": read(HERON, OTTER)}
    path = results(tmp_path, [record])
    rows = grounding_train.read_sets_rows([path], [QUESTIONS["q1"]])
    grounding_train.add_read_sets(built, rows, [])  # q1 is not among this split's questions
    assert built["read_rows"] == 0 and len(built["claim"][1]) == 2
    grounding_train.add_read_sets(built, rows, [QUESTIONS["q1"]])
    assert built["read_rows"] == 6 and len(built["claim"][1]) == 8 and built["claim"][2][-1] == "train/file.json#q1"


def test_a_refit_of_the_claim_trees_alone_needs_the_hop_trees_to_keep(tmp_path, monkeypatch):
    _tiny_training(monkeypatch)
    with pytest.raises(AssistantError, match="hop"):
        grounding_train.train(tmp_path, tmp_path / "empty", models=("claim",))


def test_a_missing_results_file_is_one_clear_error(tmp_path):
    with pytest.raises(AssistantError, match="cannot read the results file"):
        read_set_rows(tmp_path / "missing.jsonl", QUESTIONS)
