"""The second-stage passage selector: pool features see the second hop, the JSON trees score as
sklearn did, a missing or broken selector file is one clear line, and judge_pool runs the
selector (with its expansion searches) when the judge folder names one."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

from assistant.events.core import Relevance, Retrieved
from research.judge_training.chain_fit import run_plain
from research.judge_training.selector_fit import fit_gbm, gbm_json
from assistant.retrieval.pool_features import FEATURES, PoolPassage, pool_features
from assistant.retrieval.pool_select import merge_pool, search_order, selector_scores
from assistant.runner import run_question
from models.errors import ModelError
from models.judges.passage_selector import SELECTOR_FILE, PassageSelector, TreeEnsemble
from models.judges.relevance import SETTINGS_FILE, RelevanceJudge, shipped_judge_path

COLUMN = {name: i for i, name in enumerate(FEATURES)}

# A bridge question: the second paragraph shares no content word with the question, but the
# first one (ranked first) names its title.
QUESTION = "What government position was held by the woman who portrayed Corliss Archer in Kiss and Tell?"
POOL = [
    PoolPassage("Kiss and Tell (1945 film)", "Kiss and Tell is a 1945 comedy starring Shirley Temple as Corliss "
                "Archer.", 0, 0.033),
    PoolPassage("Meet Corliss Archer", "Meet Corliss Archer was a radio sitcom about a teenage girl.", 1, 0.032),
    PoolPassage("Shirley Temple", "Shirley Temple Black was an actress who later served as a United States "
                "ambassador.", 0, 0.016, expansion=1),
    PoolPassage("Lake Geneva", "Lake Geneva is a deep lake north of the Alps.", 2, 0.031),
]


def features(first=None):
    rows = pool_features(QUESTION, POOL, first or search_order(POOL), [0.0] * len(POOL))
    return [{name: row[COLUMN[name]] for name in FEATURES} for row in rows]


def test_features_see_titles_in_the_question_and_in_top_passages():
    rows = features()
    assert len(rows) == 4 and all(len(r) == len(FEATURES) for r in rows)
    assert rows[0]["title_in_question"] == 1.0  # "kiss and tell", parenthesis dropped
    assert rows[2]["title_in_question"] == 0.0 and rows[2]["question_words_in_passage"] < 0.2
    assert rows[2]["named_by_top1"] == 1.0 and rows[2]["named_by_top_weighted"] > 0  # the bridge
    assert rows[3]["named_by_top3"] == 0.0 and rows[3]["names_top3"] == 0.0
    assert rows[0]["names_top3"] == 1.0 and rows[2]["from_expansion"] == 1.0
    # under another first ranking (Lake Geneva first), nobody names the top passage any more
    assert features(first=[0.1, 0.2, 0.3, 0.9])[2]["named_by_top1"] == 0.0


def test_empty_pool_has_no_rows():
    assert pool_features(QUESTION, [], [], []) == []


def test_trees_in_json_score_as_sklearn_does():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, len(FEATURES)))
    y = (x[:, 3] + 0.5 * x[:, 7] > 0.2).astype(int)
    model = fit_gbm(x, y, seed=0)
    spec = json.loads(json.dumps(gbm_json(model)))  # through text, as it is stored
    ours = TreeEnsemble(spec, len(FEATURES)).log_odds(x)
    assert np.allclose(ours, model.decision_function(x), atol=1e-4)


def write_selector(folder: Path, expansions=0, threshold=0.5, weight_feature="named_by_top1"):
    """A one-tree selector: P high exactly when `weight_feature` > 0.5."""
    n = len(FEATURES)
    tree = {"feature": [COLUMN[weight_feature], -2, -2], "threshold": [0.5, -2, -2], "left": [1, -1, -1],
            "right": [2, -1, -1], "value": [0.0, -3.0, 3.0]}
    spec = {"features": list(FEATURES), "threshold": threshold, "expansions": expansions, "expansion_depth": 3,
            "stages": [{"init": 0.0, "learning_rate": 1.0, "max_depth": 1, "trees": [tree]}]}
    (folder / SELECTOR_FILE).write_text(json.dumps(spec), encoding="utf-8")
    assert n == len(spec["features"])


def test_selector_scores_rank_the_bridge_first(tmp_path):
    write_selector(tmp_path)
    scores = selector_scores(PassageSelector(tmp_path), QUESTION, POOL)
    assert scores[2] > 0.9 and max(scores[0], scores[1], scores[3]) < 0.1


@pytest.fixture
def judge_copy(tmp_path):
    return Path(shutil.copytree(shipped_judge_path(), tmp_path / "judge"))


def name_selector(folder: Path, name=SELECTOR_FILE):
    settings = json.loads((folder / SETTINGS_FILE).read_text(encoding="utf-8"))
    settings["selector"] = name
    (folder / SETTINGS_FILE).write_text(json.dumps(settings), encoding="utf-8")


@pytest.mark.parametrize("damage", ["missing", "not json", "bad tree", "other features"])
def test_missing_or_broken_selector_is_one_clear_line(judge_copy, damage):
    name_selector(judge_copy)
    (judge_copy / SELECTOR_FILE).unlink(missing_ok=True)
    if damage == "not json":
        (judge_copy / SELECTOR_FILE).write_text("{broken", encoding="utf-8")
    elif damage != "missing":
        write_selector(judge_copy)
        spec = json.loads((judge_copy / SELECTOR_FILE).read_text(encoding="utf-8"))
        if damage == "bad tree":
            spec["stages"][0]["trees"][0]["left"][0] = 99
        else:
            spec["features"] = spec["features"][:-1] + ["something new"]
        (judge_copy / SELECTOR_FILE).write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ModelError, match="passage selector") as caught:
        judge = RelevanceJudge(judge_copy, n_threads=1)
        selector_scores(judge.selector, QUESTION, POOL)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400


def test_judge_pool_runs_the_selector_with_its_expansion_searches(judge_copy):
    write_selector(judge_copy, expansions=1, weight_feature="question_words_in_passage")
    name_selector(judge_copy)
    retriever = FakeRetriever({"p0": "Lake Geneva is a deep lake.", "p1": "Kiss and Tell is a 1945 comedy film.",
                               "p2": "Another lake passage."})
    ctx = make_context(reader=FakeReader(answer=lambda prompt: "answer"), retriever=retriever, judge=FakeJudge(),
                       pool=3, max_passages=2, min_passages=1)
    ctx.relevance = RelevanceJudge(judge_copy, n_threads=1)
    events = list(run_question("Who starred in Kiss and Tell?", "rag:rerank=true", ctx))
    searches = [e for e in events if isinstance(e, Retrieved)]
    assert len(searches) == 2 and searches[1].query.startswith("Who starred in Kiss and Tell? ")
    verdicts = [e for e in events if isinstance(e, Relevance)]
    assert verdicts and verdicts[0].judge.endswith("+ selector")
    assert (verdicts[0].passage_id, verdicts[0].rank_before, verdicts[0].rank_after) == ("p1", 2, 1)
    assert events[-1].passages_read == ["p1"]  # one above the threshold, min_passages 1
    assert merge_pool([], [])[0] == []


def test_training_on_tiny_pools_moves_the_bridge_up():
    """Synthetic pools: the second supporting passage is ranked 6th by the search but named by the
    first; after fitting, the selector's top 2 hold both for (nearly) every held-out question."""
    from research.judge_training.selector_fit import LabelledPool, fit_two_stages

    rng = np.random.default_rng(1)
    pools = []
    for n in range(60):
        entities = [f"Entity{n}x{i} Name" for i in range(8)]
        bridge = 5
        texts = [f"Something about {entities[i]} and {entities[(i + 3) % 8]}" if i else
                 f"The topic asked about, linked to {entities[bridge]}" for i in range(8)]
        found = [PoolPassage(entities[i], texts[i], i, 1 / (61 + i)) for i in range(8)]
        labels = np.array([1 if i in (0, bridge) else 0 for i in range(8)])
        question = f"Which thing relates to the topic asked about {rng.integers(1000)}?"

        def make(first, question=question, found=found):
            return np.asarray(pool_features(question, found, list(first), [0.0] * 8))

        keys = [f"{n}-{i}" for i in range(8)]
        pools.append(LabelledPool(f"q{n}", make, search_order(found), labels, 2, keys, {keys[0], keys[bridge]}))
    _, out_of_fold = fit_two_stages(pools, seed=0)
    both = [set(np.argsort(-s, kind="stable")[:2]) == {0, 5} for s in out_of_fold]
    assert sum(both) >= 50, sum(both)  # the search's top 2 hold both for none


# -- the shipped selector -------------------------------------------------------------------------

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
# file -> (questions with a supporting paragraph first, with all of them in the first 5), at least
SAMPLE_FILES = {"hotpotqa/hotpotqa_train_100.hipporag.json": (4, 4),
                "musique/musique_ans_train_100.hipporag.json": (3, 1),
                "2wikimultihopqa/2wikimultihopqa_dev_200.migres.jsonl": (4, 4)}


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data")
@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_shipped_selector_puts_a_supporting_paragraph_first(name):
    """The first 5 questions (with paragraphs) of each training file, among their own 10-20
    paragraphs in the file's order (standing in for the search's order, which the file does not
    sort by support). The shipped selector puts one first for 5/5 HotpotQA, 3/5 MuSiQue and 5/5
    2Wiki questions, and all of them within the first 5 for 5/5, 1/5 and 5/5 (MuSiQue has 2-4
    supporting paragraphs among 20; the selector trained with expansion searches gets 1/5 here,
    the one trained without them got 2/5, and more on the report sets); one at chance would put
    one first for about 1 in 5 (1 in 8 for MuSiQue). Loaded offline from the shipped judge folder."""
    from index_builder.datasets import load_dataset
    from models.judges.relevance import RelevanceJudge

    judge = RelevanceJudge(shipped_judge_path(), n_threads=1)
    assert judge.selector is not None, "the shipped judge.json names no selector"
    examples = [e for e in load_dataset(SHARED / name, limit=10) if any(p.is_supporting for p in e.paragraphs)][:5]
    first, complete = 0, 0
    for example in examples:
        found = [PoolPassage(p.title, p.text, rank, 1 / (61 + rank)) for rank, p in enumerate(example.paragraphs)]
        scores = selector_scores(judge.selector, example.question, found)
        order = sorted(range(len(found)), key=lambda i: -scores[i])
        first += example.paragraphs[order[0]].is_supporting
        complete += all(i in order[:5] for i, p in enumerate(example.paragraphs) if p.is_supporting)
    least_first, least_complete = SAMPLE_FILES[name]
    assert len(examples) == 5 and first >= least_first and complete >= least_complete, (first, complete)


def test_sufficiency_cut_separates_complete_pools_from_short_ones():
    """Five pools hold both supporting passages at the top (rank-2 score 0.8), five only one (the
    second is not in the pool; rank-2 score 0.2): the cut falls between, flags the complete half
    as sufficient and the short half as short."""
    from types import SimpleNamespace

    from research.judge_training.selector_pipeline import choose_sufficiency

    pools, scores = [], []
    for n in range(10):
        keys = [f"{n}-{i}" for i in range(6)]
        complete = n < 5
        pools.append(SimpleNamespace(keys=keys, support_keys={keys[0], keys[1] if complete else f"{n}-missing"}))
        scores.append([0.9, 0.8 if complete else 0.2, 0.1, 0.05, 0.04, 0.03])
    rule = choose_sufficiency(pools, scores, threshold=0.5)
    assert 0.2 < rule["threshold"] <= 0.8 and rule["rank"] == 2
    assert rule["share_sufficient"] == 0.5
    assert rule["complete_when_sufficient"] == 1.0 and rule["complete_when_short"] == 0.0


def test_the_selector_loads_its_sufficiency_rule(judge_copy):
    spec = json.loads((judge_copy / SELECTOR_FILE).read_text())
    spec["sufficient"] = {"rank": 3, "threshold": 0.42}
    (judge_copy / SELECTOR_FILE).write_text(json.dumps(spec))
    assert RelevanceJudge(judge_copy, n_threads=1).sufficiency == (3, 0.42)
    del spec["sufficient"]
    (judge_copy / SELECTOR_FILE).write_text(json.dumps(spec))
    assert RelevanceJudge(judge_copy, n_threads=1).sufficiency is None


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data")
def test_train_selector_searches_a_training_file(tmp_path):
    """The search half of `assistant judge train-selector` on the smallest training file's first
    question, with a hash embedder: indexes the file's pooled corpus and returns its pool of 30."""
    import hashlib

    from research.judge_training.relevance_data import training_questions
    from research.judge_training.selector_pipeline import POOL, search_pools

    class HashEmbedder:
        model_id, dim = "hash:16", 16

        def encode(self, texts):
            rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], dtype=np.uint8) for t in texts]
            vectors = np.array(rows, dtype=np.float32).reshape(len(texts), 16) + 1
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    question = next(q for q in training_questions(SHARED, limit=1) if q.file.startswith("musique"))
    pools = search_pools([question], SHARED, tmp_path, HashEmbedder(), expansions=0, say=lambda line: None)
    assert len(pools[question.id]) == POOL and all(r["expansion"] == 0 for r in pools[question.id])


def test_judge_union_ranks_later_searches_with_the_first_pool_as_expansions(judge_copy):
    """The multi-hop answer's pool: the first hop's judged pool plus what the sub-question searches
    added (as expansion finds, to the expansion depth), scored again against the question."""
    from assistant.events.core import Passage
    from assistant.retrieval.rerank import judge_pool, judge_union

    write_selector(judge_copy, weight_feature="from_expansion")  # expansion depth 3
    name_selector(judge_copy)
    retriever = FakeRetriever({"p0": "Lake Geneva is a deep lake.", "p1": "Kiss and Tell is a 1945 comedy film."})
    ctx = make_context(reader=FakeReader(), retriever=retriever, judge=FakeJudge(), pool=2, max_passages=2,
                       min_passages=1)
    ctx.relevance = RelevanceJudge(judge_copy, n_threads=1)
    first = run_plain(judge_pool(ctx, "Who starred in Kiss and Tell?", retriever.search("q", 2)))
    assert [f.expansion for f in first.found] == [0, 0] and len(first.found) == len(first.pool)
    later = [Passage(id=pid, text=f"{pid} text", title=pid) for pid in ("p1", "s1", "s2", "s3")]
    union = run_plain(judge_union(ctx, "Who starred in Kiss and Tell?", first, [later]))
    # p1 is already in the pool; s3 is 4th in its search, past the expansion depth (3)
    assert {p.id for p in union.pool} == {"p0", "p1", "s1", "s2"}
    assert {p.id for p in union.pool[:2]} == {"s1", "s2"}  # the tree rates expansion finds high
    assert union.kept == union.pool[:2] and union.scores == sorted(union.scores, reverse=True)
