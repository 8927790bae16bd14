"""Training the grounding check (claim and hop trees) on the allowed training files, and measuring it.

Rows come from questions with support labels (relevance_data.training_questions: the report and
reserved questions never enter). For each question, with its gold answer as the claim:
- claim rows: every paragraph, with the answer alone and said as a sentence; supported when it is a gold supporting paragraph holding the answer
  (for yes/no answers, any supporting paragraph). More negatives: another question's answer as the
  claim against the supporting paragraph, and the answer planted in a paragraph about something else;
- hop rows: given the supporting paragraphs that hold the answer, each other paragraph, and two pages
  of other questions (never part of it); part of the support when it is a gold supporting paragraph
  (the bridge).
A fifth of the questions (by a hash of their id) is held out and only measured; thresholds are set
on the others' out-of-fold scores; the shipped trees are then fitted on every training question.

    python -m research.judge_training.grounding_train --data ../shared/data [--models claim]
        [--read-sets lab/results/tune_*/default__*.jsonl]   (claim rows from recorded runs: grounding_read_sets)
"""
from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.errors import AssistantError

from assistant.grounding.citations import text_for_matching
from assistant.grounding.features import CLAIM_FEATURES, HOP_FEATURES, Text, claim_rows, hop_rows, name_words
from .grounding_read_sets import read_set_rows
from .relevance_data import check_data_dir, split_held_out, training_questions
from .selector_fit import FOLDS, fit_gbm, fold_of, gbm_json

SPAN = re.compile(r"\b(?:[A-Z][\w'-]+(?:\s+(?:of\s+|the\s+)?[A-Z][\w'-]+)*|\d[\d,.]*)\b")
# Other names from the supporting paragraph as wrong claims: none by default. A lexical check cannot
# tell which name of the right passage answers (with one per paragraph the trees ranked and cut
# worse out of fold); it checks that a passage about the question's subject holds the claim, which
# is what catches answers from the wrong document.
SPAN_NEGATIVES = 0
ELSEWHERE = 2  # per question: pages of other questions among the candidate bridges (hop rows)
PLANTED = 1  # per question: the answer planted in a paragraph about something else
REQUIRED = ("claim", "hop")
TARGET_PRECISION = 0.76  # a cited passage must support its claim this often (out of fold)


@dataclass
class ClaimSet:
    """One claim read against a question's passages; `labels` names the rows trained on (passage
    index -> supported). The encoder fit (grounding_encoder_fit) scores the same sets."""
    claim: str
    passages: list[tuple[str, str]]  # (title, text) as read
    labels: dict[int, int]
    kind: str = "answer"  # "answer" (the gold answer, alone or as a sentence), "other answer" or "planted"


def question_sets(question, rng: random.Random, other_answers: list[str], elsewhere=()):
    """(claim sets, hop rows, hop labels) of one question; empty when unusable. `elsewhere`: pages
    of other questions, read beside this one's as candidate bridges that are none (a user's index
    holds pages about other things, sharing nothing with the question)."""
    example = question.example
    answer = example.answers[0] if example.answers else ""
    if not answer or text_for_matching(answer) in ("", "unknown"):
        return [], [], []
    q, claim = Text.of(example.question), Text.of(answer)
    paragraphs = [(Text.of(p.text, p.title), p) for p in example.paragraphs]
    read = [(p.title, p.text) for _, p in paragraphs]
    yes_no = example.kind == "yes/no"
    holds = [bool(p.is_supporting) and (yes_no or t.holds_phrase(claim)) for t, p in paragraphs]
    if not any(holds):
        return [], [], []  # the answer is written otherwise than in its paragraphs: no clean label
    every = dict(enumerate(int(h) for h in holds))
    # the same labels for the answer said as a sentence (readers often answer "X is led by Y."):
    # its words are all there, though not as one phrase
    sets = [ClaimSet(answer, read, every), ClaimSet(f"{example.question.rstrip('?')} {answer}.", read, every)]
    for i, ((text, paragraph), held) in enumerate(zip(paragraphs, holds)):
        if not held or yes_no:
            continue
        spans = [s for s in SPAN.findall(paragraph.text) if text_for_matching(s) and text_for_matching(s) not in text_for_matching(answer)
                 and text_for_matching(answer) not in text_for_matching(s)]
        for wrong in rng.sample(spans, min(SPAN_NEGATIVES, len(spans))) + [rng.choice(other_answers)]:
            sets.append(ClaimSet(wrong, read, {i: 0}, "other answer"))
    sets += planted_negatives(answer, paragraphs, holds, rng)
    support = [t for (t, _), h in zip(paragraphs, holds) if h]
    if yes_no:
        support = support[:1]
    others = [(text, paragraph) for text, paragraph in paragraphs if not any(text is s for s in support)]
    candidates = [text for text, _ in others] + [Text.of(p.text, p.title) for p in elsewhere]
    hx = hop_rows(q, claim, candidates, support, name_words(example.question))
    hy = [int(bool(paragraph.is_supporting)) for _, paragraph in others] + [0] * len(elsewhere)
    return sets, hx, hy


def planted_negatives(answer: str, paragraphs, holds, rng: random.Random) -> list[ClaimSet]:
    """The answer planted in place of a name in a paragraph about something else: the claim's words
    are there, but the passage is not about the question's subject ("Who leads Project Otter?" ->
    "Mira Okafor", found in the Heron project's page)."""
    sets = []
    others = [i for i, h in enumerate(holds) if not h and not paragraphs[i][1].is_supporting]
    for i in rng.sample(others, min(PLANTED, len(others))):
        paragraph = paragraphs[i][1]
        spans = SPAN.findall(paragraph.text)
        if not spans:
            continue
        read = [(p.title, p.text) for _, p in paragraphs]
        read[i] = (paragraph.title, paragraph.text.replace(rng.choice(spans), answer, 1))
        sets.append(ClaimSet(answer, read, {i: 0}, "planted"))
    return sets


def set_rows(question: str, claim_set: ClaimSet) -> list[list[float]]:
    """The lexical claim rows of a set's labelled passages (in `labels` order)."""
    texts = [Text.of(text, title) for title, text in claim_set.passages]
    rows = claim_rows(Text.of(question), Text.of(claim_set.claim), texts)
    return [rows[i] for i in claim_set.labels]


def build(questions, seed: int = 0, keep_sets: bool = False):
    rng = random.Random(seed)
    answers = [q.example.answers[0] for q in questions if q.example.answers]
    rows = {"claim": ([], [], []), "hop": ([], [], [])}  # x, y, question id per row
    sets = []  # (question, claim set), when kept
    pages = [(q.id, p) for q in questions for p in q.example.paragraphs]
    for question in questions:
        # its own generator, so the claim sets drawn from `rng` stay as they were
        draw = random.Random(f"{seed}:{question.id}")
        drawn = draw.sample(pages, min(ELSEWHERE + 2, len(pages)))
        elsewhere = [p for qid, p in drawn if qid != question.id][:ELSEWHERE]
        claim_sets, hx, hy = question_sets(question, rng, answers, elsewhere)
        x = [r for c in claim_sets for r in set_rows(question.example.question, c)]
        y = [label for c in claim_sets for label in c.labels.values()]
        sets += [(question, c) for c in claim_sets] if keep_sets else []
        for name, (rx, ry) in (("claim", (x, y)), ("hop", (hx, hy))):
            rows[name][0].extend(rx)
            rows[name][1].extend(ry)
            rows[name][2].extend([question.id] * len(rx))
    built = {name: (np.asarray(x, dtype=np.float64), np.asarray(y), ids) for name, (x, y, ids) in rows.items()}
    return (built, sets) if keep_sets else built


def out_of_fold(x: np.ndarray, y: np.ndarray, ids: list[str], seed: int) -> np.ndarray:
    folds = np.asarray([fold_of(i) for i in ids])
    scores = np.zeros(len(y))
    for fold in range(FOLDS):
        test = folds == fold
        scores[test] = fit_gbm(x[~test], y[~test], seed).predict_proba(x[test])[:, 1]
    return scores


def threshold_for(scores: np.ndarray, y: np.ndarray, precision: float) -> float:
    """The lowest cut whose passages above it are right at least `precision` of the time."""
    for cut in np.arange(0.30, 0.96, 0.01):
        above = scores >= cut
        if above.any() and y[above].mean() >= precision:
            return round(float(cut), 2)
    return 0.95


def measure(scores: np.ndarray, y: np.ndarray, cut: float) -> dict:
    above = scores >= cut
    right = (above == (y == 1))
    return {"rows": int(len(y)), "positives": int(y.sum()), "accuracy": round(float(right.mean()), 4),
            "precision": round(float(y[above].mean()) if above.any() else 0.0, 4),
            "recall": round(float(above[y == 1].mean()) if y.any() else 0.0, 4)}


def read_sets_rows(read_sets, questions) -> tuple[list[list[float]], list[int], list[str]]:
    """Claim rows of recorded runs (grounding_read_sets), each file read once, for these questions."""
    by_id = {q.example.id: q for q in questions}
    x, y, ids = [], [], []
    for results in read_sets:
        rx, ry, rids = read_set_rows(Path(results), by_id)
        x.extend(rx)
        y.extend(ry)
        ids.extend(rids)
    return x, y, ids


def add_read_sets(built: dict, rows, questions) -> None:
    """The read-set rows of `questions` put after `built`'s claim rows; built["read_rows"] counts them."""
    wanted = {q.id for q in questions}
    take = [i for i, question_id in enumerate(rows[2]) if question_id in wanted]
    x, y, ids = built["claim"]
    if take:
        x = np.vstack([x, np.asarray([rows[0][i] for i in take], dtype=np.float64)])
        y = np.concatenate([y, [rows[1][i] for i in take]])
        ids = ids + [rows[2][i] for i in take]
    built["claim"], built["read_rows"] = (x, y, ids), len(take)


def own_rows(built: dict, name: str) -> int:
    """How many of `built`'s rows of a model come from the questions' own paragraphs (they come first)."""
    return len(built[name][1]) - (built.get("read_rows", 0) if name == "claim" else 0)


def train(data_dir: Path, out: Path, seed: int = 0, read_sets=(), models=("claim", "hop")) -> dict:
    """Fit the named `models` and write them into out/grounding.json; any other model already there
    (the claim_encoder, or the hop trees when only the claim trees are refitted) is kept as it is."""
    path = out / "grounding.json"
    try:
        kept = dict(json.loads(path.read_text(encoding="utf-8"))["models"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        kept = {}  # none, or unreadable: nothing to keep
    missing = sorted(set(REQUIRED) - set(models) - set(kept))
    if missing:
        raise AssistantError(f"{path} has no {' or '.join(missing)} trees to keep; refit them too (--models)")
    questions = training_questions(check_data_dir(data_dir))
    train_q, held_q = split_held_out(questions, 0.2)
    fit, held = build(train_q, seed), build(held_q, seed + 1)
    rows = read_sets_rows(read_sets, questions)
    add_read_sets(fit, rows, train_q)
    add_read_sets(held, rows, held_q)
    spec = {"made_by": "research.judge_training.grounding_train", "seed": seed,
            "questions": {"train": len(train_q), "held_out": len(held_q)},
            "read_sets": ["/".join(Path(r).parts[-2:]) for r in read_sets], "models": dict(kept)}
    for name, features in (("claim", CLAIM_FEATURES), ("hop", HOP_FEATURES)):
        if name not in models:
            continue
        x, y, ids = fit[name]
        # the cut is set on the questions' own paragraphs, whose labels are clean: a read set's
        # page that is not the question's gold paragraph counts as no support even where it
        # states the same fact (a pooled index holds such pages), so those rows understate precision
        own = own_rows(fit, name)
        cut = threshold_for(out_of_fold(x, y, ids, seed)[:own], y[:own], TARGET_PRECISION)
        model = fit_gbm(x, y, seed)
        hx, hy, _ = held[name]
        held_own = own_rows(held, name)
        scores = model.predict_proba(hx)[:, 1]
        held_metrics = measure(scores[:held_own], hy[:held_own], cut)
        if held_own < len(hy):
            held_metrics["read_sets"] = measure(scores[held_own:], hy[held_own:], cut)
        shipped = fit_gbm(np.vstack([x, hx]), np.concatenate([y, hy]), seed)  # all training questions
        spec["models"][name] = {"features": list(features), "threshold": cut, "held_out": held_metrics,
                                "trees": gbm_json(shipped)}
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(spec), encoding="utf-8")
    return {name: {"threshold": spec["models"][name]["threshold"], **spec["models"][name]["held_out"]}
            for name in models}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2] / "models" / "grounding_model")
    parser.add_argument("--read-sets", type=Path, nargs="*", default=[],
                        help="results files of `assistant eval` runs of training questions (with their "
                             "`read` passages): claim rows as the check reads them at answer time")
    parser.add_argument("--models", nargs="+", choices=REQUIRED, default=list(REQUIRED),
                        help="the trees to refit; the others in --out stay as they are")
    args = parser.parse_args()
    try:
        print(json.dumps(train(args.data, args.out, read_sets=args.read_sets, models=tuple(args.models)), indent=1))
    except AssistantError as exc:
        raise SystemExit(f"error: {exc}") from None


if __name__ == "__main__":
    main()
