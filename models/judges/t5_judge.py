"""The T5 judge: an exported (Flan-)T5 run by onnxruntime through optimum, on CUDA or CPU.

Verdicts score both label sequences with the decoder (teacher forcing) and compare
P(positive) = softmax over the two sequence log-likelihoods with the calibrated threshold
stored in the folder's judge.json. Relevance of all k passages is one call, run in batches
of inputs of similar length: per batch one encoder pass and one decoder pass over both labels.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Sequence

from models.judges import t5_format as fmt
from models.errors import ModelError
from models.judges.judge import Verdict, two_label_verdict
from models.judges.t5_device import Placement, placement
from models.judges.t5_onnx import Calibration, check_folder, corrupt


class T5Judge:
    def __init__(self, folder: Path | str, where: Placement | None = None, n_threads: int | None = None):
        self.folder = check_folder(folder)
        self.calibration = Calibration.load(self.folder)
        self.placement = where or placement()
        self.tokenizer, self.model = _load(self.folder, self.placement, n_threads)
        backend = "t5-onnx-int8" if self.calibration.int8 else "t5-onnx"
        self.name = f"{backend}/{self.placement.device}"
        self._labels = {task: [self.tokenizer(label).input_ids for label in pair]
                        for task, pair in fmt.LABELS.items()}

    # -- the Judge interface --------------------------------------------------------------

    def knows(self, question: str) -> Verdict:
        (yes, no), = self.label_logprobs(fmt.KNOWS, [fmt.knows_input(question)])
        return two_label_verdict(yes, no, self.calibration.knows_threshold)

    def relevant(self, question: str, passages: Sequence[str]) -> list[Verdict]:
        if not passages:
            return []
        inputs = [fmt.relevance_input(question, passage) for passage in passages]
        return [two_label_verdict(yes, no, self.calibration.relevance_threshold)
                for yes, no in self.label_logprobs(fmt.RELEVANCE, inputs)]

    def decompose(self, question: str) -> list[str]:
        encoded = self._encode([fmt.decompose_input(question)])
        try:
            generated = self.model.generate(**encoded, max_new_tokens=fmt.MAX_DECOMPOSITION_TOKENS,
                                            do_sample=False, num_beams=1)
        except Exception as exc:  # onnxruntime failures surface as many exception types
            raise ModelError(f"the T5 judge failed to generate: {_first_line(exc)}") from None
        text = self.tokenizer.decode(generated[0], skip_special_tokens=True)
        return fmt.parse_decomposition(text, question)

    # -- scoring --------------------------------------------------------------------------

    def label_logprobs(self, task: str, inputs: list[str]) -> list[tuple[float, float]]:
        """(log P(positive label), log P(negative label)) for each input, in input order."""
        lengths = [len(ids) for ids in self.tokenizer(inputs, truncation=True,
                                                      max_length=fmt.MAX_INPUT_TOKENS)["input_ids"]]
        scores: list[tuple[float, float]] = [(0.0, 0.0)] * len(inputs)
        for batch in length_batches(lengths):
            # Tokenized again with padding: fast, and tokenizer.pad() warns on every call.
            for i, pair in zip(batch, self._score_batch(task, self._encode([inputs[i] for i in batch]))):
                scores[i] = pair
        return scores

    def _score_batch(self, task: str, encoded) -> list[tuple[float, float]]:
        """One encoder pass over n inputs, one decoder pass over n positive and n negative label rows."""
        import torch
        from transformers.modeling_outputs import BaseModelOutput

        n = encoded["input_ids"].shape[0]
        positive, negative = self._labels[task]
        width = max(len(positive), len(negative))
        pad = self.tokenizer.pad_token_id
        targets = torch.full((2 * n, width), pad, dtype=torch.long)
        valid = torch.zeros((2 * n, width), dtype=torch.bool)
        for row, ids in enumerate([positive] * n + [negative] * n):
            targets[row, :len(ids)] = torch.tensor(ids)
            valid[row, :len(ids)] = True
        start = torch.full((2 * n, 1), self.model.config.decoder_start_token_id, dtype=torch.long)
        decoder_inputs = torch.cat([start, targets[:, :-1]], dim=1)  # causal: padding after a label is harmless
        try:
            hidden = self.model.encoder(input_ids=encoded["input_ids"],
                                        attention_mask=encoded["attention_mask"]).last_hidden_state
            out = self.model(encoder_outputs=BaseModelOutput(last_hidden_state=hidden.repeat(2, 1, 1)),
                             attention_mask=encoded["attention_mask"].repeat(2, 1),
                             decoder_input_ids=decoder_inputs, use_cache=False)
        except Exception as exc:
            raise ModelError(f"the T5 judge failed to score labels: {_first_line(exc)}") from None
        logprobs = torch.log_softmax(out.logits.float(), dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        totals = (logprobs * valid).sum(dim=1).tolist()
        return list(zip(totals[:n], totals[n:]))

    def _encode(self, inputs: list[str]) -> dict:
        batch = self.tokenizer(inputs, return_tensors="pt", padding=True, truncation=True,
                               max_length=fmt.MAX_INPUT_TOKENS)
        return {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}


# Padding every input to the longest of k costs encoder work: on CPU one 10-passage batch of
# paragraphs of mixed lengths ran slower than 10 single calls. Inputs are sorted by length and
# grouped so that a batch's longest input is at most MAX_PADDING times its shortest, and a batch
# holds at most MAX_BATCH_TOKENS (padded) tokens.
MAX_PADDING = 1.25
MAX_BATCH_TOKENS = 8192


def length_batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indices of `lengths` grouped into batches of similar length, shortest first."""
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        current = batches[-1] if batches else None
        if (current is None or lengths[i] > MAX_PADDING * lengths[current[0]]
                or (len(current) + 1) * lengths[i] > MAX_BATCH_TOKENS):
            batches.append([i])
        else:
            current.append(i)
    return batches


def _load(folder: Path, where: Placement, n_threads: int | None):
    import onnxruntime as ort

    quiet = [logging.getLogger(n) for n in ("optimum", "transformers")]
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.ERROR)  # export-time and generation-config chatter is not the user's business
    try:
        from optimum.onnxruntime import ORTModelForSeq2SeqLM
        from transformers import AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        except Exception as exc:
            raise ModelError(f"cannot load the T5 judge tokenizer from {folder}: {_first_line(exc)}") from None
        options = ort.SessionOptions()
        options.log_severity_level = 3
        if n_threads:
            options.intra_op_num_threads = n_threads
        try:
            model = ORTModelForSeq2SeqLM.from_pretrained(
                folder, provider=where.provider, session_options=options, use_cache=True, use_merged=True,
                use_io_binding=False,
                local_files_only=True)
        except Exception as exc:
            raise corrupt(folder, exc) from None
    finally:
        for q, level in zip(quiet, levels):
            q.setLevel(level)
    if where.device == "cuda":
        _keep_tensors_on_cpu(model)
    return tokenizer, model


def _keep_tensors_on_cpu(model) -> None:
    """With a CPU-only torch, optimum must build its (dummy) tensors on the CPU; onnxruntime
    copies inputs to the GPU itself when IO binding is off."""
    import torch

    if torch.cuda.is_available():
        return
    for part in (model, model.encoder, model.decoder):
        if hasattr(part, "_device"):
            part._device = torch.device("cpu")


def _first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]


def load_t5_judge(judge_path, n_threads: int | None = None) -> T5Judge:
    """The T5 judge in `judge_path` (checked first). The registry shares one per folder: this
    module does not import it back."""
    return T5Judge(check_folder(judge_path).resolve(), n_threads=n_threads)
