"""Measuring the grounding encoder against the claim trees on held-out training questions, and fitting
the trees that read its score (the claim_encoder model of grounding.json).

Questions split as grounding_encoder_train's (encoder's / trees' / held out, by a hash of their id).
Rows: grounding_train's claim sets (every paragraph with the gold answer alone and as a sentence,
another question's answer against the supporting paragraph, the answer planted in another
paragraph), each narrowed to the passages a reader would read (`narrowed`: the supporting ones,
then those sharing the most of the question's words, READ in all). Compared on the held-out questions, each with a threshold set on the trees' questions
(out of fold for trees) for the same target precision as the shipped trees:
- trees: the lexical claim trees (fitted on encoder's + trees' questions, as shipped; and on the
  trees' questions alone, the same rows as the last two);
- encoder: its probability alone (head fitted on the trees' questions);
- trees AND encoder: both above their cuts;
- trees + encoder: the trees with the encoder's score and its gap to the best passage as features.
The chosen model is then refitted on the trees' and held-out questions (the encoder saw neither).

    python -m research.judge_training.grounding_encoder_fit --data ../shared/data
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from assistant.grounding.features import ENCODER_FEATURES, Text, encoder_columns, encoder_pair
from .grounding_encoder_train import ENCODER_FOLDER, three_way
from .grounding_train import TARGET_PRECISION, ClaimSet, build, measure, out_of_fold, set_rows, threshold_for
from .relevance_data import check_data_dir, training_questions
from .relevance_metrics import fit_platt
from .selector_fit import fit_gbm, gbm_json

GROUNDING_JSON = ENCODER_FOLDER.parent / "grounding.json"
HIGHER_TARGETS = (0.80, 0.85, 0.90)
READ = 6  # passages per claim set: about as many as the reader reads (2-5; the top 5 after the missing hop)


def encoder_cosines(judge, claim_sets, cache: dict[tuple[str, str], float]) -> list[list[float]]:
    """The encoder's raw score of every passage of every set (each distinct pair scored once; `cache`
    holds the pairs scored so far and gains the new ones)."""
    out = []
    for question, claim_set in claim_sets:
        pairs = [encoder_pair(question.example.question, claim_set.claim, title, text)
                 for title, text in claim_set.passages]
        todo = list(dict.fromkeys(p for p in pairs if p not in cache))
        by_first: dict[str, list[str]] = {}
        for first, second in todo:
            by_first.setdefault(first, []).append(second)
        for first, seconds in by_first.items():
            for second, value in zip(seconds, judge.cosines(first, seconds)):
                cache[(first, second)] = value
        out.append([cache[p] for p in pairs])
    return out


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def labelled_columns(cosines: list[list[float]], claim_sets, head: tuple[float, float]) -> np.ndarray:
    """grounding_features.encoder_columns of each set's labelled rows."""
    a, b = head
    rows = []
    for values, (_, claim_set) in zip(cosines, claim_sets):
        columns = encoder_columns(sigmoid(a * np.asarray(values) + b))
        rows += [columns[i] for i in claim_set.labels]
    return np.asarray(rows)


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    pos, neg = scores[y == 1], scores[y == 0]
    if not len(pos) or not len(neg):
        return 0.0
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1
    return round(float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))), 4)


def kinds_passed(scores: np.ndarray, cut: float, kinds: list[str]) -> dict:
    """The share of the hard negatives' rows (other answer, planted) the model passes."""
    kinds_arr = np.asarray(kinds)
    return {k: round(float((scores[kinds_arr == k] >= cut).mean()), 4) for k in ("other answer", "planted")
            if (kinds_arr == k).any()}


def row_kinds(claim_sets) -> list[str]:
    return [c.kind for _, c in claim_sets for _ in c.labels]


def narrowed(question, claim_set: ClaimSet, read: int = READ) -> ClaimSet:
    """The set as a reader meets it: its supporting passages and the labelled one, then those sharing
    the most of the question's words, at most `read` in all (in their order); rows of dropped ones go."""
    asked = set(Text.of(question.example.question).tokens)
    labels = claim_set.labels
    must = [i for i, p in enumerate(question.example.paragraphs) if p.is_supporting]
    must += [i for i, label in labels.items() if label == 1 or len(labels) == 1]
    must = list(dict.fromkeys(must))
    others = sorted((i for i in range(len(claim_set.passages)) if i not in must),
                    key=lambda i: -len(asked & Text.of(claim_set.passages[i][1], claim_set.passages[i][0]).bag))
    keep = sorted(must + others[:max(0, read - len(must))])
    where = {old: new for new, old in enumerate(keep)}
    return ClaimSet(claim_set.claim, [claim_set.passages[i] for i in keep],
                    {where[i]: label for i, label in labels.items() if i in where}, claim_set.kind)


def rows_of(sets) -> tuple[np.ndarray, np.ndarray, list[str]]:
    x = [row for question, c in sets for row in set_rows(question.example.question, c)]
    y = [label for _, c in sets for label in c.labels.values()]
    ids = [question.id for question, c in sets for _ in c.labels]
    return np.asarray(x, dtype=np.float64), np.asarray(y), ids


def load_cache(path: Path | None) -> dict[tuple[str, str], float]:
    if path is None or not path.is_file():
        return {}
    return {tuple(pair): value for pair, value in json.loads(path.read_text(encoding="utf-8"))}


def save_cache(path: Path | None, cache: dict[tuple[str, str], float]) -> None:
    if path is not None:
        path.write_text(json.dumps([[list(pair), value] for pair, value in cache.items()]), encoding="utf-8")


def compare(data_dir: Path, folder: Path, seed: int = 0, threads: int = 2, limit: int | None = None,
            cache_path: Path | None = None, trees_questions: int | None = None) -> dict:
    """The held-out comparison; `cache_path` keeps the encoder's scores between runs (same encoder only)."""
    from models.judges.relevance import RelevanceJudge

    questions = training_questions(check_data_dir(data_dir), limit)
    encoder_q, trees_q, held_q = three_way(questions)
    if trees_questions and trees_questions < len(trees_q):  # every k-th, for time: each costs ~30 encoder runs
        trees_q = [q for i, q in enumerate(trees_q) if i * trees_questions // len(trees_q) != (i + 1) * trees_questions // len(trees_q)]
    judge = RelevanceJudge(folder, n_threads=threads)
    both_sets, fit_sets, held_sets = ([(q, narrowed(q, c)) for q, c in build(chosen, s, keep_sets=True)[1]]
                                      for chosen, s in ((encoder_q + trees_q, seed), (trees_q, seed), (held_q, seed + 1)))
    started = time.perf_counter()
    cache = load_cache(cache_path)
    known = len(cache)
    fit_cos, held_cos = encoder_cosines(judge, fit_sets, cache), encoder_cosines(judge, held_sets, cache)
    pairs = len(cache) - known
    seconds = time.perf_counter() - started
    save_cache(cache_path, cache)
    (x, y, ids), (hx, hy, hids) = rows_of(fit_sets), rows_of(held_sets)
    flat = [v for values, (_, c) in zip(fit_cos, fit_sets) for i, v in enumerate(values) if i in c.labels]
    head = fit_platt(flat, list(y))
    ex, hex_ = labelled_columns(fit_cos, fit_sets, head), labelled_columns(held_cos, held_sets, head)
    kinds = row_kinds(held_sets)
    results = {}

    def record(name: str, cut: float, held_scores: np.ndarray) -> None:
        results[name] = {"threshold": cut, **measure(held_scores, hy, cut), "auc": auc(held_scores, hy),
                         "hard_negatives_passed": kinds_passed(held_scores, cut, kinds)}

    bx, by, bids = rows_of(both_sets)
    cut = threshold_for(out_of_fold(bx, by, bids, seed), by, TARGET_PRECISION)
    trees_all = fit_gbm(bx, by, seed)
    record("trees (encoder's + trees' questions)", cut, trees_all.predict_proba(hx)[:, 1])
    trees_oof = out_of_fold(x, y, ids, seed)
    tree_cut = threshold_for(trees_oof, y, TARGET_PRECISION)
    trees = fit_gbm(x, y, seed)
    tree_held = trees.predict_proba(hx)[:, 1]
    record("trees (trees' questions)", tree_cut, tree_held)
    enc_cut = threshold_for(ex[:, 0], y, TARGET_PRECISION)
    record("encoder", enc_cut, hex_[:, 0])
    # AND: the lowest encoder cut at which the trees' passes it keeps (out of fold) are right 5 points
    # more often than the target
    best = next((round(float(c), 2) for c in np.arange(0.05, 0.96, 0.05)
                 if ((trees_oof >= tree_cut) & (ex[:, 0] >= c)).any()
                 and y[(trees_oof >= tree_cut) & (ex[:, 0] >= c)].mean() >= TARGET_PRECISION + 0.05), 0.5)
    both_held = np.where(hex_[:, 0] >= best, tree_held, 0.0)
    record(f"trees AND encoder >= {best:.2f}", tree_cut, both_held)
    xe, hxe = np.hstack([x, ex]), np.hstack([hx, hex_])
    combined_oof, combined_held = out_of_fold(xe, y, ids, seed), fit_gbm(xe, y, seed).predict_proba(hxe)[:, 1]
    record("trees + encoder features", threshold_for(combined_oof, y, TARGET_PRECISION), combined_held)
    for target in HIGHER_TARGETS:  # the cost in recall of asking more of the combined model
        record(f"trees + encoder features, target {target}", threshold_for(combined_oof, y, target), combined_held)
    return {"questions": {"encoder": len(encoder_q), "trees": len(trees_q), "held_out": len(held_q)},
            "held_rows": int(len(hy)), "held_positives": int(hy.sum()), "head": [round(v, 6) for v in head],
            "encoder_threshold": enc_cut, "pairs_scored": pairs,
            "encoder_pairs_per_second": round(pairs / max(seconds, 1e-9), 1) if pairs else None,
            "models": results,
            "refit": (np.vstack([xe, hxe]), np.concatenate([y, hy]), ids + hids)}


def ship(comparison: dict, folder: Path, seed: int = 0, target: float = TARGET_PRECISION) -> dict:
    """The trees + encoder model refitted on the trees' and held-out questions, into grounding.json;
    the encoder's head and threshold into its judge.json."""
    x, y, ids = comparison.pop("refit")
    cut = threshold_for(out_of_fold(x, y, ids, seed), y, target)
    spec = json.loads(GROUNDING_JSON.read_text(encoding="utf-8"))
    name = "trees + encoder features" + ("" if target == TARGET_PRECISION else f", target {target}")
    held = comparison["models"].get(name, comparison["models"]["trees + encoder features"])
    spec["models"]["claim_encoder"] = {"features": list(ENCODER_FEATURES), "threshold": cut, "held_out": held,
                                       "trees": gbm_json(fit_gbm(x, y, seed))}
    GROUNDING_JSON.write_text(json.dumps(spec), encoding="utf-8")
    settings_path = folder / "judge.json"
    settings = json.loads(settings_path.read_text(encoding="utf-8"))
    a, b = comparison["head"]
    settings.update({"head": {"kind": "segment-cosine", "a": a, "b": b}, "threshold": comparison["encoder_threshold"],
                     "held_out": comparison})
    settings_path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return {"claim_encoder_threshold": cut, "target": target, "rows": int(len(y))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--encoder", type=Path, default=ENCODER_FOLDER)
    parser.add_argument("--ship", action="store_true", help="write the trees + encoder model into grounding.json")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="the first N usable questions of each file (a quick try)")
    parser.add_argument("--cache", type=Path, default=None, help="a JSON file keeping the encoder's scores between runs")
    parser.add_argument("--target", type=float, default=TARGET_PRECISION,
                        help="the claim_encoder threshold's precision target (out of fold)")
    parser.add_argument("--trees-questions", type=int, default=None, help="at most this many of the trees' questions")
    args = parser.parse_args()
    comparison = compare(args.data, args.encoder, threads=args.threads, limit=args.limit, cache_path=args.cache,
                         trees_questions=args.trees_questions)
    if args.ship:
        shipped = ship(comparison, args.encoder, target=args.target)
    else:
        comparison.pop("refit")
        shipped = {}
    print(json.dumps({**comparison, "shipped": shipped}, indent=1, default=float))


if __name__ == "__main__":
    main()
