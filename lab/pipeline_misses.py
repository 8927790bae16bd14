"""Where the default pipeline's misses come from, question by question (no reader run).

    .venv/bin/python lab/pipeline_misses.py RESULTS.jsonl --set HotpotQA|MuSiQue [--lines] [--hop-sources]

The pipeline's searches and the selector are deterministic, so the passages its final answer read
are replayed from the results record: the first hop's kept passages, and, where it took the hop,
each sub-question's search as it was made (the written sub-question with the earlier recorded
sub-answers filled in), and the read set its record shows (hop_read: union: everything found
ranked against the question, top PAGES.union_read (assistant/profiles/settings.py); first: the first hop's top passages and each
sub-question's). Each exact-match miss then gets one cause:
- self-knowledge gate: answered closed-book (wrongly);
- retrieval: some supporting paragraph was in no pool the pipeline searched;
- judge: all were found, but the passages read missed one;
- reader, partial: all supporting paragraphs were read and the answer overlaps the gold (F1 > 0);
- reader, found on the way: the gold answer was a sub-answer or an earlier draft, then lost;
- reader: all were read, and the answer is wrong.
Only the report sets (data rules: relevance_data.py); ReFeed's passages are not replayed (it refines
only; a refinement that lost a right draft shows as "found on the way").
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.context import RunContext  # noqa: E402
from research.evaluation import metrics  # noqa: E402
from assistant.answering.hops import add_new, bridged_query  # noqa: E402
from assistant.answering.settings import ANSWERING  # noqa: E402
from assistant.retrieval.rerank import Ranked, judge_pool, judge_union  # noqa: E402
from assistant.profiles.settings import PAGES  # noqa: E402
from research.judge_training.chain_fit import run_plain  # noqa: E402
from research.judge_training.relevance_data import REPORT_FILES, check_data_dir, report_questions  # noqa: E402
from research.judge_training.relevance_pairs import key_of_path, supporting_keys  # noqa: E402
from models.errors import AssistantError  # noqa: E402


def sub_searches(record: dict) -> list[str]:
    """The searches the hop made: each written sub-question with the earlier recorded answers
    filled in, as follow_hops wrote them."""
    queries, pairs = [], []
    for written, (asked, answer) in zip(record["sub_questions"], record["sub_answers"]):
        queries.append(bridged_query(written, pairs))
        pairs.append((asked, answer))
    return queries


class Replay:
    """The pipeline's searches and selections, without the reader: the product's own judge_pool
    and judge_union run over a context with no reader (their events are dropped)."""

    def __init__(self, retriever, judge, settings):
        self.retriever, self.judge, self.settings = retriever, judge, settings
        self.ctx = RunContext(settings, reader=None, retriever=retriever, relevance=judge)
        self._searches: dict[str, list] = {}
        self._ranked: dict[str, Ranked] = {}  # query -> judge_pool's ranking: --hop-sources asks again

    def search(self, query: str) -> list:
        """The pipeline's search for a question or sub-question: a pool as wide as settings.pool."""
        if query not in self._searches:
            self._searches[query] = self.retriever.search(query, self.settings.pool)
        return self._searches[query]

    def ranked(self, query: str) -> Ranked:
        """The search's pool grown by the selector's expansion searches and ranked, as judge_pool
        ranks it (`.pool`: all of it, best first; `.kept`: what the reader reads)."""
        if query not in self._ranked:
            self._ranked[query] = run_plain(judge_pool(self.ctx, query, self.search(query)))
        return self._ranked[query]

    def union(self, question: str, record: dict) -> Ranked:
        """Everything the first hop and the sub-question searches found, ranked against the
        question by rerank.judge_union (hop_read=union)."""
        searches = [self.search(q) for q in sub_searches(record)]
        return run_plain(judge_union(self.ctx, question, self.ranked(question), searches))

    def first_and_parts(self, question: str, record: dict, first: int | None = PAGES.first_hop_carried) -> list:
        """The first hop's top `first` kept passages (None: all it kept), then each sub-question's
        new top ones (hop_read=first)."""
        carried: list = []
        for query in sub_searches(record):
            carried = add_new(carried, self.ranked(query).kept[:ANSWERING.sub_passages], ANSWERING.carried)
        return add_new(list(self.ranked(question).kept[:first]), carried)

    def passages(self, question: str, record: dict, hop_read: str = "union"):
        """(keys of every pool searched, keys of the passages the final answer read)."""
        ranked = self.ranked(question)
        searched = {key_of_path(p.path) for p in ranked.pool}
        if not record["resolved_by"].startswith("multi-hop"):
            return searched, {key_of_path(p.path) for p in ranked.kept}
        for query in sub_searches(record):  # each sub-question's pool, with its expansion searches
            searched |= {key_of_path(p.path) for p in self.ranked(query).pool}
        read = self.union(question, record).pool[:PAGES.union_read] if hop_read == "union" else \
            self.first_and_parts(question, record)
        return searched, {key_of_path(p.path) for p in read}

    def hop_sources(self, question: str, record: dict, support: set[str], hop_read: str) -> dict[str, bool]:
        """For a question that took the hop: is all the support found by the first search alone,
        with the selector's expansion searches (no reader call), with the reader's sub-question
        searches, with both; and among the passages the final answer read."""
        first = {key_of_path(p.path) for p in self.search(question)}
        expanded = {key_of_path(p.path) for p in self.ranked(question).pool}
        subs = first | {key_of_path(p.path) for query in sub_searches(record) for p in self.search(query)}
        _, read = self.passages(question, record, hop_read)
        return {"first search": support <= first, "+ expansion searches": support <= expanded,
                "+ sub-question searches": support <= subs, "+ both": support <= expanded | subs,
                "read by the final answer": support <= read}


def hop_read_of(record: dict) -> str:
    """How a hopped answer chose its passages: "union" when its record shows the multi-hop stage
    ranking the pool again (a Relevance step right after the stage opens), else "first" (the
    runs made before hop_read existed)."""
    path = record.get("path", [])
    after_hop = [i for i, step in enumerate(path) if step.startswith("d1 ")]
    rest = path[after_hop[-1] + 1:] if after_hop else []
    return "union" if len(rest) > 1 and rest[0] == "pipeline.stage" and rest[1].startswith("relevant ") else "first"


def cause(record: dict, support: set[str], searched: set[str], read: set[str]) -> str:
    if record["resolved_by"].startswith("self-knowledge"):
        return "self-knowledge gate"
    if not support <= searched:
        return "retrieval"
    if not support <= read:
        return "judge"
    if record["scores"]["f1"] > 0:
        return "reader, partial"
    golds = record["gold"]
    on_the_way = [a for _, a in record.get("sub_answers", [])] + [d["text"] for d in record.get("drafts", [])]
    if any(metrics.score(text, golds, record["kind"])["em"] for text in on_the_way):
        return "reader, found on the way"
    return "reader"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--set", required=True, choices=sorted(REPORT_FILES))
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--lines", action="store_true", help="one line per missed question")
    parser.add_argument("--hop-sources", action="store_true",
                        help="for the questions that took the hop: where their support was found")
    args = parser.parse_args()
    if not args.results.is_file():
        raise AssistantError(f"no results file at {args.results}")

    from index_builder.dataset_corpus import build_dataset_corpus
    from research.evaluation.results import ResultsFile
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.store import IndexStore
    from models import registry
    from models.config import load_settings
    from models.judges.relevance import RelevanceJudge, shipped_judge_path

    data = check_data_dir(args.data)
    settings = load_settings()
    embedder = registry.get_embedder(settings)
    index, _ = build_dataset_corpus(data / REPORT_FILES[args.set].path, settings.data_dir, embedder)
    replay = Replay(HybridRetriever(IndexStore.open(index), embedder),
                    RelevanceJudge(shipped_judge_path(), n_threads=settings.n_threads), settings)
    records = ResultsFile(args.results).records
    causes: Counter[str] = Counter()
    lines = []
    questions = [q for q in report_questions(data)[args.set] if q.example.id in records]
    if not questions:
        raise AssistantError(f"{args.results} holds no answer to a {args.set} report question")
    for question in questions:
        record = records[question.example.id]
        if record["scores"]["em"]:
            causes["right"] += 1
            continue
        searched, read = replay.passages(question.example.question, record, hop_read_of(record))
        why = cause(record, supporting_keys(question), searched, read)
        causes[why] += 1
        lines.append(f"- [{why}] {question.example.question[:90]} -> {record['prediction'][:40]!r} "
                     f"(gold {record['gold'][0][:40]!r}; {record['resolved_by']})")
    n = len(questions)
    print(f"{args.set}: {n} questions, {causes['right']} right (EM)\n")
    print("| cause of the miss | questions | share of all |")
    print("| --- | --- | --- |")
    for name in ("self-knowledge gate", "retrieval", "judge", "reader, partial", "reader, found on the way", "reader"):
        print(f"| {name} | {causes[name]} | {100 * causes[name] / n:.0f}% |")
    if args.lines:
        print("\n" + "\n".join(lines))
    if args.hop_sources:
        hopped = [q for q in questions if records[q.example.id]["resolved_by"].startswith("multi-hop")]
        found: Counter[str] = Counter()
        for question in hopped:
            found.update(k for k, v in replay.hop_sources(question.example.question, records[question.example.id],
                                                          supporting_keys(question),
                                                          hop_read_of(records[question.example.id])).items() if v)
        print(f"\n{len(hopped)} questions took the hop; all support found by")
        print("| searches | questions | share |\n| --- | --- | --- |")
        for name in ("first search", "+ expansion searches", "+ sub-question searches", "+ both",
                     "read by the final answer"):
            print(f"| {name} | {found[name]} | {100 * found[name] / max(len(hopped), 1):.0f}% |")


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
