"""Chain recall on TRAINING questions: how often all supporting paragraphs are in the read set
(budgets 3/4/5/6), for today's selector and for the chain selector, no reader involved.

    .venv/bin/python lab/chain_recall.py [--data ../shared/data] [--cache DIR] [--budgets 3,4,5,6]
        [--limit N] [--stops 0,0.1,0.2] [--write JUDGE_FOLDER]

Questions: the judge's training questions (research/judge_training/relevance_data.py: ircot
HotpotQA 101-500, the HippoRAG HotpotQA and MuSiQue train samples, 2Wiki records with context),
less every question of a reserved file or a report set (by id and by text). Each is searched in
its own file's pooled corpus (under ASSISTANT_DATA_DIR; built when missing), with the selector's
two expansion searches (research/judge_training/selector_pipeline.py).

Rows: the search's order; the shipped selector (it was trained on these very questions, so its
row is optimistic); the selector refitted out of fold (5 folds by question id: each question
scored by stages that never saw it) - the fair baseline; the chain selector
(assistant/retrieval/chain_select.py) fitted on the other folds, with and without its hop searches
(question + each kept passage, no reader call). Hop order for the teacher-forced states:
MuSiQue's question_decomposition, the file's paragraph order elsewhere. --write fits the chain
scorer on every training question and writes chain.json into the judge folder.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.errors import AssistantError  # noqa: E402

GROUPS = {"musique": "MuSiQue", "hotpotqa": "HotpotQA", "2wikimultihopqa": "2Wiki"}


def group_of(file: str) -> str:
    return GROUPS.get(file.split("/", 1)[0], file)


def hop_order(data: Path, question) -> list[str]:
    """Supporting paragraph keys in hop order: MuSiQue's decomposition, else the file's order."""
    from research.judge_training.relevance_pairs import paragraph_key

    ex = question.example
    order = [paragraph_key(p.title, p.text) for p in ex.paragraphs if p.is_supporting]
    if group_of(question.file) == "MuSiQue":
        raw = _musique_records(data / question.file).get(str(ex.id))
        if raw:
            idx = [s.get("paragraph_support_idx") for s in raw.get("question_decomposition", [])]
            paragraphs = raw.get("paragraphs", [])
            hops = [paragraph_key(paragraphs[i]["title"], paragraphs[i]["paragraph_text"]) for i in idx
                    if isinstance(i, int) and 0 <= i < len(paragraphs)]
            order = [k for k in dict.fromkeys(hops) if k in order] + [k for k in order if k not in hops]
    return order


_MUSIQUE: dict[Path, dict] = {}


def _musique_records(path: Path) -> dict:
    if path not in _MUSIQUE:
        records = json.loads(path.read_text(encoding="utf-8"))
        _MUSIQUE[path] = {str(r["id"]): r for r in records}
    return _MUSIQUE[path]


class HopSearchCache:
    """Hop searches per file, remembered in a JSON file (searching is the slow part)."""

    def __init__(self, path: Path | None, data: Path, data_dir: Path, embedder, depth: int):
        self.path, self.data, self.data_dir, self.embedder, self.depth = path, data, data_dir, embedder, depth
        self.found: dict[str, list] = {}
        if path and path.is_file():
            self.found = json.loads(path.read_text(encoding="utf-8"))
        self.retrievers: dict[str, object] = {}
        self.searched = 0

    def search(self, file: str, query: str):
        from assistant.retrieval.chain_select import ChainCandidate

        key = hashlib.sha1(f"{file}\0{self.depth}\0{query}".encode("utf-8")).hexdigest()
        if key not in self.found:
            self.found[key] = [[k, t, x] for k, t, x in self._search(file, query)]
            self.searched += 1
            if self.searched % 200 == 0:
                self.save()
        return [ChainCandidate(k, t, x, 0.0, False) for k, t, x in self.found[key]]

    def _search(self, file: str, query: str):
        from index_builder.dataset_corpus import build_dataset_corpus
        from research.judge_training.relevance_pairs import key_of_path
        from assistant.retrieval.retriever import HybridRetriever
        from index_builder.store import IndexStore

        if file not in self.retrievers:
            index, _ = build_dataset_corpus(self.data / file, self.data_dir, self.embedder)
            self.retrievers[file] = HybridRetriever(IndexStore.open(index), self.embedder, candidates=30)
        return [(key_of_path(p.path), p.title, p.text) for p in self.retrievers[file].search(query, self.depth)]

    def save(self) -> None:
        if self.path:
            self.path.write_text(json.dumps(self.found), encoding="utf-8")


def recall_rows(label: str, ranked: dict[str, list[str]], questions, support, budgets, table) -> None:
    for k in budgets:
        for q in questions:
            hit = bool(support[q.id]) and support[q.id] <= set(ranked[q.id][:k])
            table.setdefault(f"{label} top-{k}", {}).setdefault(group_of(q.file), []).append(hit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, default=None, help="a folder for the searched pools and hop searches")
    parser.add_argument("--budgets", default="3,4,5,6")
    parser.add_argument("--stops", default="0,0.05,0.1,0.2,0.3", help="chain stop thresholds to try (held out)")
    parser.add_argument("--limit", type=int, default=None, help="the first N usable questions of each file")
    parser.add_argument("--write", type=Path, default=None, help="a judge folder: write chain.json there")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    stops = [float(s) for s in args.stops.split(",")]

    import numpy as np

    from assistant.retrieval.chain_select import ChainCandidate
    from research.judge_training import chain_fit
    from research.judge_training.relevance_data import check_data_dir, training_questions
    from research.judge_training.relevance_pairs import supporting_keys
    from research.judge_training.selector_fit import FOLDS, fit_two_stages, fold_of
    from research.judge_training.selector_pipeline import EXPANSIONS, labelled_pools, search_pools
    from assistant.retrieval.pool_features import PoolPassage
    from assistant.retrieval.pool_select import selector_scores
    from models import registry
    from models.config import load_settings
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    data = check_data_dir(args.data)
    settings = load_settings()
    embedder = registry.get_embedder(settings)
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    questions = training_questions(data, args.limit)
    say(f"{len(questions)} training questions")
    pools = search_pools(questions, data, settings.data_dir, embedder, EXPANSIONS, say,
                         args.cache / "pools.json" if args.cache else None)
    labelled = labelled_pools(questions, pools)
    started = time.perf_counter()
    _, oof = fit_two_stages(labelled, 0)
    say(f"selector refitted out of fold in {time.perf_counter() - started:.0f}s")
    shipped = RelevanceJudge(shipped_judge_path()).selector
    support = {q.id: supporting_keys(q) for q in questions}
    table: dict[str, dict[str, list[bool]]] = {}

    def order(keys, scores):
        return [keys[i] for i in np.argsort(-np.asarray(scores), kind="stable")]

    ranked_search, ranked_shipped, ranked_oof = {}, {}, {}
    for q, pool, scores in zip(questions, labelled, oof):
        records = pools[q.id]
        found = [PoolPassage(r["title"], r["text"], r["rank"], r["score"], r["expansion"]) for r in records]
        ranked_search[q.id] = list(pool.keys)
        ranked_shipped[q.id] = order(pool.keys, selector_scores(shipped, q.example.question, found))
        ranked_oof[q.id] = order(pool.keys, scores)
    for q in questions:
        table.setdefault("merged pool (30 + 2 expansion searches) holds all", {}).setdefault(
            group_of(q.file), []).append(support[q.id] <= set(ranked_search[q.id]))
    recall_rows("search order", ranked_search, questions, support, budgets, table)
    recall_rows("selector, shipped (saw these questions)", ranked_shipped, questions, support, budgets, table)
    recall_rows("selector, out of fold (baseline)", ranked_oof, questions, support, budgets, table)

    hops = HopSearchCache(args.cache / "hops.json" if args.cache else None, data, settings.data_dir, embedder,
                          chain_fit.SEARCH_DEPTH)
    chain_questions = []
    for q, scores in zip(questions, oof):
        records = pools[q.id]
        candidates = [ChainCandidate(r["key"], r["title"], r["text"], float(s)) for r, s in zip(records, scores)]
        chain_questions.append(chain_fit.ChainQuestion(q.id, q.example.question, candidates, hop_order(data, q),
                                                       group_of(q.file), lambda query, f=q.file: hops.search(f, query)))
    chosen = {}
    for searched in (False, True):
        started = time.perf_counter()
        models = chain_fit.out_of_fold_models(chain_questions, FOLDS, hop_searches=searched)
        hops.save()
        say(f"chain scorer ({'with' if searched else 'without'} hop searches) fitted per fold in "
            f"{time.perf_counter() - started:.0f}s; {hops.searched} searches so far")
        best = None
        for stop in stops:
            ranked = {q.question_id: chain_fit.chain_keys(
                q, chain_fit.FittedScorer(models[fold_of(q.question_id, FOLDS)], stop), max(budgets), searched)
                for q in chain_questions}
            label = f"chain{' + hop searches' if searched else ', pool only'}, stop {stop:g} (held out)"
            recall_rows(label, ranked, questions, support, budgets, table)
            share = np.mean([support[q.id] <= set(ranked[q.id][:5]) for q in questions])
            best = max(best or (share, stop), (share, stop))
        chosen[searched] = best[1]
        hops.save()
        say(f"best stop {'with' if searched else 'without'} hop searches: {best[1]} (all-support@5 {best[0]:.3f})")

    columns = sorted({g for row in table.values() for g in row})
    counts = {g: sum(group_of(q.file) == g for q in questions) for g in columns}
    print("| read set (training questions, no reader) | " + " | ".join(f"{g} ({counts[g]})" for g in columns) + " |")
    print("| --- |" + " --- |" * len(columns))
    for label, row in table.items():
        print(f"| {label} | " + " | ".join(f"{100 * np.mean(row[g]):.1f}%" for g in columns) + " |")
    baseline = "selector, out of fold (baseline)"
    print(f"\n| paired against the {baseline}: questions won / lost | " + " | ".join(columns) + " |")
    print("| --- |" + " --- |" * len(columns))
    for label, row in table.items():
        if not label.startswith("chain") or not label.endswith(("top-3", "top-5")):
            continue
        base = table[f"{baseline} top-{label.rsplit('top-', 1)[1]}"]
        cells = [f"{sum(a and not b for a, b in zip(row[g], base[g]))} / "
                 f"{sum(b and not a for a, b in zip(row[g], base[g]))}" for g in columns]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(f"\nhop searches made: {hops.searched} (cached: {len(hops.found)})")

    if args.write:
        from models.judges.chain_scorer import CHAIN_FILE

        model = chain_fit.fit_scorer(chain_questions, 0, hop_searches=True)
        spec = chain_fit.chain_spec(model, chosen[True], {
            "questions": len(chain_questions), "folds": FOLDS, "selector_scores": "out of fold",
            "stop_chosen_on": "held-out all-support at 5, training questions"})
        (args.write / CHAIN_FILE).write_text(json.dumps(spec), encoding="utf-8")
        hops.save()
        say(f"wrote {args.write / CHAIN_FILE}")


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
