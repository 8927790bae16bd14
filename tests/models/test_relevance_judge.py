"""The passage-relevance judge: training moves its verdicts, the shipped judge ranks support first,
a missing or broken judge is one clear line, and the data rules keep reserved questions out."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from index_builder.datasets import QAExample, load_dataset
from research.judge_training.relevance_data import (QuestionSet, check_data_dir, report_questions,
                                                     reserved_examples, training_questions)
from research.judge_training.relevance_metrics import best_threshold
from research.judge_training.relevance_pairs import RelevancePair
from models.errors import AssistantError, ModelError
from models.judges.relevance import MODEL_FILE, SETTINGS_FILE, RelevanceJudge, passage_text, shipped_judge_path

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
needs_data = pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data")


@pytest.fixture(scope="module")
def shipped():
    return RelevanceJudge(shipped_judge_path(), n_threads=1)


# -- data rules ------------------------------------------------------------------------------

def test_question_set_matches_by_id_or_normalised_text():
    reserved = QuestionSet([QAExample("abc", "Who founded the Acme Company?", ["X"])])
    assert QAExample("abc", "something else", ["X"]) in reserved
    assert QAExample("other", "who founded  the acme company", ["X"]) in reserved
    assert QAExample("other", "Who founded Acme Ltd?", ["X"]) not in reserved


@needs_data
def test_no_training_question_is_reserved_or_reported():
    questions = training_questions(SHARED)
    reserved = QuestionSet(reserved_examples(SHARED))
    report = QuestionSet(q.example for qs in report_questions(SHARED).values() for q in qs)
    assert len(questions) > 700  # the rule drops a few, not the data
    assert not [q.id for q in questions if q.example in reserved]
    assert not [q.id for q in questions if q.example in report]
    # and the report sets themselves leave reserved questions out (2 HotpotQA, 8 MuSiQue)
    assert not [q.id for qs in report_questions(SHARED).values() for q in qs if q.example in reserved]


def test_missing_data_folder_is_one_clear_error(tmp_path):
    with pytest.raises(AssistantError, match="no shared data folder"):
        check_data_dir(tmp_path / "nowhere")


def test_threshold_maximises_f1_over_pools():
    pools = [([0.9, 0.8, 0.2, 0.1], [True, False, False, False]), ([0.7, 0.6, 0.3], [True, True, False])]
    threshold = best_threshold(pools)
    assert threshold.value == 0.6 and threshold.recall == 1.0 and threshold.precision == 0.75


# -- training moves the verdicts ---------------------------------------------------------------

TINY = [
    ("Who founded the Harbour Museum?", "Harbour Museum: The Harbour Museum was founded in 1901 by Ada Lind.",
     "Glass Lake: Glass Lake is a lake in the northern hills, fed by two rivers."),
    ("In which year did the Red Mill open?", "Red Mill: The Red Mill opened in 1888 beside the canal.",
     "Blue Finch: The blue finch is a small songbird of dry grassland."),
    ("Who wrote the novel Iron Tide?", "Iron Tide: Iron Tide is a 1954 novel written by Marta Kell.",
     "Cold Peak: Cold Peak is the highest mountain of the range, at 3,100 metres."),
    ("What river flows through Ostrava Bay?", "Ostrava Bay: The Vell river flows through Ostrava Bay into the sea.",
     "Tin Drum Band: Tin Drum Band is a rock group formed in Leeds in 1979."),
]


def test_training_on_a_tiny_set_moves_the_verdicts(tmp_path):
    from research.judge_training.relevance_train import (TrainSettings, base_model_path, fine_tune, load_encoder,
                                                          torch_cosines)

    pairs = [RelevancePair(str(i), q, p, label, "t") for i, (q, pos, neg) in enumerate(TINY)
             for p, label in ((pos, 1), (neg, 0))]

    def margins(folder):  # per question: score of the supporting passage minus the other's
        model, tokenizer = load_encoder(folder)
        return [pos - neg for q, p, n in TINY for pos, neg in [torch_cosines(model, tokenizer, q, [p, n], 64)]]

    before = margins(base_model_path())
    report = fine_tune(pairs, tmp_path / "ckpt", TrainSettings(epochs=6, lr=1e-4, groups_per_batch=2, max_length=64,
                                                               threads=1))
    after = margins(tmp_path / "ckpt")
    assert report.steps == 12 and report.pairs == 48
    assert sum(after) / len(after) > sum(before) / len(before) + 0.05, (before, after)
    assert all(margin > 0 for margin in after), after


# -- the shipped judge ---------------------------------------------------------------------------

SAMPLE_FILES = ("hotpotqa/hotpotqa_train_100.hipporag.json", "musique/musique_ans_train_100.hipporag.json",
                "2wikimultihopqa/2wikimultihopqa_dev_200.migres.jsonl")


@needs_data
@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_shipped_judge_puts_a_supporting_paragraph_first(shipped, name):
    """The first 5 questions (with paragraphs) of each training file, among their own 10-20
    paragraphs: a supporting one first for at least 3, and within the first 2 for all. The
    shipped judge puts one first for 5/5 HotpotQA, 4/5 MuSiQue and 3/5 2Wiki questions (never
    lower than second); one at chance would put one first for about 1 in 5 (1 in 8 for MuSiQue)."""
    examples = [e for e in load_dataset(SHARED / name, limit=10) if any(p.is_supporting for p in e.paragraphs)][:5]
    ranks = []
    for example in examples:
        scores = shipped.score(example.question, [passage_text(p.title, p.text) for p in example.paragraphs])
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        ranks.append(next(r for r, i in enumerate(order, 1) if example.paragraphs[i].is_supporting))
    assert len(examples) == 5 and max(ranks) <= 2 and ranks.count(1) >= 3, ranks


def test_shipped_judge_scores_in_order_and_batches_alike(shipped):
    question = "Who founded the Harbour Museum?"
    passages = [TINY[0][2], TINY[0][1], "Harbour Museum: " + "a long text about the museum building " * 40]
    scores = shipped.score(question, passages)
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert scores[1] > scores[0]
    # one passage's score does not depend on the others scored with it
    assert [round(s, 6) for s in scores] == [round(shipped.score(question, [p])[0], 6) for p in passages]
    assert shipped.score(question, []) == []
    assert 0.0 < shipped.threshold < 1.0


# -- a missing or broken judge -----------------------------------------------------------------------

@pytest.fixture
def copy_of_judge(tmp_path):
    return Path(shutil.copytree(shipped_judge_path(), tmp_path / "judge"))


def test_missing_folder_or_file_is_one_clear_model_error(tmp_path, copy_of_judge):
    with pytest.raises(ModelError, match="relevance judge folder not found"):
        RelevanceJudge(tmp_path / "absent")
    (copy_of_judge / MODEL_FILE).unlink()
    with pytest.raises(ModelError, match=f"relevance judge file missing: .*{MODEL_FILE}") as caught:
        RelevanceJudge(copy_of_judge)
    assert "\n" not in str(caught.value)


def test_broken_files_are_one_clear_model_error(copy_of_judge):
    (copy_of_judge / MODEL_FILE).write_bytes(b"not an onnx graph" * 10)
    with pytest.raises(ModelError, match="not a usable ONNX model") as caught:
        RelevanceJudge(copy_of_judge)
    assert "\n" not in str(caught.value)
    (copy_of_judge / SETTINGS_FILE).write_text("{broken", encoding="utf-8")
    with pytest.raises(ModelError, match="judge.json is unreadable"):
        RelevanceJudge(copy_of_judge)


def _cli(*args, tmp_path):
    env = dict(os.environ, ASSISTANT_DATA_DIR=str(tmp_path / "data"), ASSISTANT_CONFIG=os.devnull,
               HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def _one_error_line(result) -> str:
    assert result.returncode == 1, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.stderr and len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_cli_broken_judge_and_missing_data_are_one_error_line(tmp_path, copy_of_judge):
    (copy_of_judge / MODEL_FILE).write_bytes(b"\x08\x07garbage")
    line = _one_error_line(_cli("judge", "score", "--model", str(copy_of_judge), "q?", "a passage", tmp_path=tmp_path))
    assert MODEL_FILE in line
    line = _one_error_line(_cli("judge", "train-relevance", "--out", str(tmp_path / "out"),
                                "--data", str(tmp_path / "nodata"), tmp_path=tmp_path))
    assert "no shared data folder" in line
