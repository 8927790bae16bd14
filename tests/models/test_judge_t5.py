"""The ONNX T5 judge end to end on a tiny T5 trained here: distilled-format data -> fine-tune ->
export -> int8 -> load -> verdicts that follow what it learned; plus the pieces on their own
(label scoring against torch, batching, thresholds, folder checks, the CUDA probe)."""
import json
import shutil

import pytest

from research.judge_training.calibrate import best_threshold
from research.judge_training.data import read_examples, split_held_out
from research.judge_training.export import export_judge, quantize_judge
from models.judges import t5_device
from models.judges import t5_format as fmt
from models.errors import AssistantError, ModelError
from models.judges.judge import two_label_verdict
from models.judges.t5_judge import MAX_BATCH_TOKENS, MAX_PADDING, T5Judge, length_batches
from models.judges.t5_onnx import DECODER, ENCODER, Calibration

from lab.fixtures import t5_tiny

NEW_NAMES = ["Quentin", "Wanda", "Yusuf"]  # never seen in training


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    return t5_tiny.trained_judge(tmp_path_factory.getbasetemp() / "tiny-t5")


@pytest.fixture(scope="module")
def int8_judge(tiny):
    return T5Judge(tiny.int8)


@pytest.fixture(scope="module")
def fp32_folder(tiny, tmp_path_factory):
    return export_judge(tiny.checkpoint, tmp_path_factory.mktemp("fp32") / "judge")


@pytest.fixture(scope="module")
def fp32_judge(fp32_folder):
    return T5Judge(fp32_folder)


# -- the round trip ---------------------------------------------------------------------------

def test_training_learned_the_toy_task(tiny):
    assert tiny.report.steps > 0 and tiny.report.last_loss < tiny.report.first_loss / 5


def test_int8_judge_verdicts_follow_what_it_learned(int8_judge):
    assert int8_judge.name == "t5-onnx-int8/cpu"
    for place in ("Peru", "Norway", "Ghana"):
        verdict = int8_judge.knows(t5_tiny.known_question(place))
        assert verdict.yes and verdict.score > 0.8, place
    for name in ("Anna", "Sven"):
        for question in (t5_tiny.unknown_question(name), t5_tiny.company_question(name)):
            verdict = int8_judge.knows(question)
            assert not verdict.yes and verdict.score < 0.2, question

    question = t5_tiny.company_question("Lena")
    passages = [t5_tiny.relevant_passage(NEW_NAMES[0]), t5_tiny.irrelevant_passage("Chile"),
                t5_tiny.irrelevant_passage("Oman"), t5_tiny.relevant_passage(NEW_NAMES[1])]
    verdicts = int8_judge.relevant(question, passages)
    assert [v.yes for v in verdicts] == [True, False, False, True]
    assert all(0.0 <= v.score <= 1.0 for v in verdicts)
    assert int8_judge.relevant(question, []) == []


def test_decomposition_is_generated_and_parsed(int8_judge):
    question = "Where was the director of the film about Chile born?"
    assert int8_judge.decompose(question) == t5_tiny.DECOMPOSITION


def test_calibration_is_stored_with_held_out_accuracy(tiny):
    calibration = Calibration.load(tiny.int8)
    assert calibration.int8 and "fine-tuned on" in calibration.source
    for task in calibration.held_out.values():
        assert task["examples"] >= 1 and 0.0 <= task["accuracy"] <= 1.0


def test_int8_is_quantized_and_agrees_with_fp32(tiny, fp32_folder, int8_judge, fp32_judge):
    assert fp32_judge.name == "t5-onnx/cpu" and not fp32_judge.calibration.int8
    # Op types are plain strings in the protobuf, subgraphs (the merged decoder's If branches)
    # included. Sizes would not tell: at d_model 32 scales and zero points outweigh the savings.
    for name in (ENCODER, DECODER):
        assert b"MatMulInteger" in (tiny.int8 / name).read_bytes(), name
        assert b"MatMulInteger" not in (fp32_folder / name).read_bytes(), name
    question = t5_tiny.company_question("Omar")
    passages = [t5_tiny.relevant_passage("Rosa"), t5_tiny.irrelevant_passage("Mali")]
    for a, b in zip(int8_judge.relevant(question, passages), fp32_judge.relevant(question, passages)):
        assert a.yes == b.yes and abs(a.score - b.score) < 0.1
    # only what inference needs is kept
    assert not list(fp32_folder.glob("decoder_model.onnx")) and not list(fp32_folder.glob("*with_past*"))


def test_quantizing_an_exported_folder_equals_exporting_int8(fp32_folder, int8_judge, tmp_path):
    judge = T5Judge(quantize_judge(fp32_folder, tmp_path / "q"))
    assert judge.name == "t5-onnx-int8/cpu"
    inputs = [fmt.knows_input(t5_tiny.known_question("Fiji")), fmt.knows_input(t5_tiny.unknown_question("Ines"))]
    for a, b in zip(judge.label_logprobs(fmt.KNOWS, inputs), int8_judge.label_logprobs(fmt.KNOWS, inputs)):
        assert a == pytest.approx(b, abs=1e-4)
    with pytest.raises(AssistantError, match="already an int8"):
        quantize_judge(tmp_path / "q", tmp_path / "again")


# -- scoring ----------------------------------------------------------------------------------

def test_onnx_label_scores_match_torch(tiny, fp32_judge):
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(tiny.checkpoint)
    model = T5ForConditionalGeneration.from_pretrained(tiny.checkpoint).eval()
    inputs = [fmt.knows_input(t5_tiny.known_question("Cuba")), fmt.knows_input(t5_tiny.unknown_question("Hugo"))]
    onnx_scores = fp32_judge.label_logprobs(fmt.KNOWS, inputs)
    for text, (onnx_yes, onnx_no) in zip(inputs, onnx_scores):
        encoded = tokenizer(text, return_tensors="pt")
        expected = []
        for label in fmt.LABELS[fmt.KNOWS]:
            labels = tokenizer(label, return_tensors="pt").input_ids
            with torch.no_grad():  # loss is the mean token NLL; the judge sums
                expected.append(-model(**encoded, labels=labels).loss.item() * labels.shape[1])
        assert onnx_yes == pytest.approx(expected[0], abs=1e-3)
        assert onnx_no == pytest.approx(expected[1], abs=1e-3)


def test_batched_relevance_equals_one_at_a_time(fp32_judge):
    question = t5_tiny.company_question("Petra")
    passages = [t5_tiny.relevant_passage("Jonas"), t5_tiny.irrelevant_passage("Spain") + " It is long and wide.",
                t5_tiny.relevant_passage("Elif") + " Later it moved.", t5_tiny.irrelevant_passage("Laos")]
    batched = fp32_judge.relevant(question, passages)
    single = [fp32_judge.relevant(question, [p])[0] for p in passages]
    for a, b in zip(batched, single):
        assert a.yes == b.yes and a.score == pytest.approx(b.score, abs=1e-4)


def test_length_batches_bound_padding_and_keep_every_input_once():
    lengths = [300, 120, 180, 125, 310, 100, 200, 119, 40, 3000]
    batches = length_batches(lengths)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        sizes = [lengths[i] for i in batch]
        assert sizes == sorted(sizes) and max(sizes) <= MAX_PADDING * min(sizes)
        assert len(batch) == 1 or len(batch) * max(sizes) <= MAX_BATCH_TOKENS
    assert [lengths[i] for i in batches[1]] == [100, 119, 120, 125]
    assert length_batches([50] * 200)[0] == list(range(MAX_BATCH_TOKENS // 50))
    assert length_batches([]) == []


def test_calibrated_threshold_decides_the_verdict(tiny, tmp_path):
    folder = tmp_path / "judge"
    shutil.copytree(tiny.int8, folder)
    question = t5_tiny.known_question("Italy")
    before = T5Judge(folder).knows(question)
    calibration = Calibration.load(folder)
    calibration.knows_threshold = min(1.0, before.score + 1e-6)
    calibration.save(folder)
    after = T5Judge(folder).knows(question)
    assert before.yes and not after.yes and after.score == pytest.approx(before.score)


def test_two_label_verdict():
    assert two_label_verdict(-1.0, -1.0).score == pytest.approx(0.5)
    assert two_label_verdict(-900.0, -1000.0).yes  # no underflow at very low likelihoods
    assert not two_label_verdict(-0.5, -0.1).yes
    assert not two_label_verdict(-0.1, -0.5, threshold=0.9).yes


def test_best_threshold_separates_and_prefers_the_default_on_ties():
    threshold, accuracy = best_threshold([0.1, 0.2, 0.3, 0.35], [False, False, True, True])
    assert accuracy == 1.0 and 0.2 < threshold <= 0.3
    assert best_threshold([0.9, 0.1], [True, False]) == (0.5, 1.0)
    assert best_threshold([], []) == (0.5, 0.0)


def test_decomposition_parsing_is_strict():
    q = "Where was the director of Jaws born?"
    two = fmt.decomposition_target(["Who directed Jaws?", "Where was Steven Spielberg born?"])
    assert fmt.parse_decomposition(two, q) == ["Who directed Jaws?", "Where was Steven Spielberg born?"]
    assert fmt.parse_decomposition("1. Who directed Jaws?", q) == []  # one item is no decomposition
    assert fmt.parse_decomposition("Spielberg was born in Cincinnati.", q) == []
    assert fmt.parse_decomposition(f"1. {q} 2. {q}", q) == []  # repeats of the question
    assert fmt.parse_decomposition("1. director 2. birthplace", q) == []  # not questions


# -- files and errors -------------------------------------------------------------------------

def test_missing_or_damaged_folders_are_model_errors(tiny, tmp_path):
    with pytest.raises(ModelError, match="not found"):
        T5Judge(tmp_path / "nowhere")
    incomplete = tmp_path / "incomplete"
    shutil.copytree(tiny.int8, incomplete)
    (incomplete / DECODER).unlink()
    with pytest.raises(ModelError, match=f"missing {DECODER}"):
        T5Judge(incomplete)
    not_onnx = tmp_path / "not-onnx"
    shutil.copytree(tiny.int8, not_onnx)
    (not_onnx / ENCODER).write_text("<html>a download error page</html>")
    with pytest.raises(ModelError, match="not an ONNX model"):
        T5Judge(not_onnx)
    truncated = tmp_path / "truncated"
    shutil.copytree(tiny.int8, truncated)
    data = (truncated / DECODER).read_bytes()
    (truncated / DECODER).write_bytes(data[: len(data) // 3])
    with pytest.raises(ModelError, match="damaged"):
        T5Judge(truncated)


def test_registry_names_what_is_wrong_with_the_judge_setting(tiny):
    from models.config import Settings
    from models.registry import get_judge

    with pytest.raises(ModelError, match="unknown judge 't9'"):
        get_judge(Settings(judge="t9"))
    with pytest.raises(ModelError, match="no model folder"):
        get_judge(Settings(judge="t5"))
    assert get_judge(Settings(judge="t5", judge_path=tiny.int8)) is get_judge(Settings(judge="t5", judge_path=tiny.int8))


def test_bad_calibration_file_is_a_model_error(tiny, tmp_path):
    folder = tmp_path / "judge"
    shutil.copytree(tiny.int8, folder)
    (folder / "judge.json").write_text(json.dumps({"knows_threshold": 7}))
    with pytest.raises(ModelError, match="outside"):
        T5Judge(folder)
    (folder / "judge.json").write_text("{not json")
    with pytest.raises(ModelError, match="calibration"):
        T5Judge(folder)


def test_export_refuses_what_is_not_a_t5_checkpoint(tmp_path):
    with pytest.raises(AssistantError, match="no such checkpoint"):
        export_judge(tmp_path / "nothing", tmp_path / "out")
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(AssistantError, match="needs a T5"):
        export_judge(bert, tmp_path / "out")


def test_training_data_errors_name_the_line(tmp_path):
    path = tmp_path / "data.jsonl"
    good = json.dumps({"task": "knows", "question": "Q?", "target": "know"})
    for bad, message in ((json.dumps({"task": "knows", "question": "Q?", "target": "yes"}), "not one of"),
                         ("{oops", "not JSON"),
                         (json.dumps({"task": "relevance", "question": "Q?", "target": "relevance"}), "passage"),
                         (json.dumps({"task": "decompose", "question": "Q?", "target": "no list"}), r"2\+ questions"),
                         (json.dumps({"question": "Q?"}), "needs task")):
        path.write_text(good + "\n" + bad + "\n")
        with pytest.raises(AssistantError, match=message) as caught:
            read_examples(path)
        assert "line 2" in str(caught.value)


def test_held_out_split_keeps_each_question_on_one_side(tiny):
    examples = read_examples(tiny.data)
    train, held = split_held_out(examples, 0.3)
    assert train and held and len(train) + len(held) == len(examples)
    assert not {e.id for e in train} & {e.id for e in held}


# -- device -----------------------------------------------------------------------------------

class _Session:
    def __init__(self, providers):
        self._providers = providers

    def get_providers(self):
        return self._providers


@pytest.mark.parametrize("listed, session, usable, reason", [
    ([t5_device.CPU], None, False, "no CUDA provider"),
    ([t5_device.CUDA, t5_device.CPU], [t5_device.CPU], False, "fall back"),
    ([t5_device.CUDA, t5_device.CPU], RuntimeError("libcudnn.so.9: cannot open"), False, "libcudnn"),
    ([t5_device.CUDA, t5_device.CPU], [t5_device.CUDA, t5_device.CPU], True, ""),
])
def test_cuda_is_used_only_when_a_session_really_runs_on_it(monkeypatch, listed, session, usable, reason):
    import onnxruntime as ort

    def fake_session(model_bytes, sess_options=None, providers=None):
        assert model_bytes[:1] == b"\x08" and providers == [t5_device.CUDA]  # a real probe model
        if isinstance(session, Exception):
            raise session
        return _Session(session)

    monkeypatch.setattr(t5_device, "_cuda_library_installed", lambda: True)  # as onnxruntime-gpu ships
    monkeypatch.setattr(ort, "get_available_providers", lambda: listed)
    monkeypatch.setattr(ort, "InferenceSession", fake_session)
    got_usable, got_reason = t5_device.probe_cuda()
    assert got_usable == usable and reason in got_reason


def test_without_the_cuda_provider_library_onnxruntime_is_not_asked(monkeypatch):
    import onnxruntime as ort

    def asked():
        raise AssertionError("onnxruntime was asked although no CUDA provider library is installed")

    monkeypatch.setattr(t5_device, "_cuda_library_installed", lambda: False)
    monkeypatch.setattr(ort, "get_available_providers", asked)
    assert t5_device.probe_cuda() == (False, t5_device._NO_CUDA_PROVIDER)


def test_the_cuda_provider_library_is_seen_where_onnxruntime_lists_cuda():
    import onnxruntime as ort

    assert t5_device._cuda_library_installed() == (t5_device.CUDA in ort.get_available_providers())


def test_this_machine_gets_a_working_placement():
    import onnxruntime as ort

    where = t5_device.placement()
    assert where.provider in ort.get_available_providers()
    assert (where.device == "cuda") == (where.provider == t5_device.CUDA)
