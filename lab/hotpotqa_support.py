"""How often retrieval finds both supporting paragraphs of a HotpotQA question (no reader involved).

    .venv/bin/python lab/hotpotqa_support.py DATASET INDEX [--first 100] [--k 5,10]

INDEX is the pooled corpus `assistant index dataset DATASET` built (its folder under the data
dir). For vector, full-text and hybrid search at each k it prints the share of questions with
both supporting titles among the results, and the mean share of supporting titles found. A
multi-hop question is rarely answered from one of its two paragraphs, so this bounds what any
reader can do with that retrieval.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from index_builder.datasets import load_dataset  # noqa: E402
from assistant.retrieval.retriever import HybridRetriever  # noqa: E402
from index_builder.store import IndexStore  # noqa: E402
from models import registry  # noqa: E402
from models.config import Settings  # noqa: E402
from models.errors import AssistantError  # noqa: E402


def supporting_titles(path: Path, first: int) -> list[tuple[str, set[str]]]:
    """(question, titles of its supporting paragraphs), for questions whose file marks them."""
    questions = [(example.question, {p.title for p in example.paragraphs if p.is_supporting})
                 for example in load_dataset(path, limit=first)]
    questions = [(question, titles) for question, titles in questions if titles]
    if not questions:
        raise AssistantError(f"{path}: no question marks its supporting paragraphs (HotpotQA, MuSiQue "
                             "and 2Wiki files do)")
    return questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="a dataset file that marks supporting paragraphs (HotpotQA)")
    parser.add_argument("index", type=Path)
    parser.add_argument("--first", type=int, default=100)
    parser.add_argument("--k", default="5,10")
    args = parser.parse_args()

    questions = supporting_titles(args.dataset, args.first)
    embedder = registry.get_embedder(Settings())
    retriever = HybridRetriever(IndexStore.open(args.index), embedder)
    searches = {
        "vector": lambda q, k: [r["title"] for r in retriever.by_vector(embedder.encode([q])[0], k)],
        "full text": lambda q, k: [r["title"] for r in retriever.by_text(q, k)],
        "hybrid": lambda q, k: [p.title for p in retriever.search(q, k)],
    }
    print("| search | k | both supporting found | supporting found (mean share) |")
    print("| --- | --- | --- | --- |")
    for k in (int(x) for x in args.k.split(",")):
        for name, search in searches.items():
            both = found = 0.0
            for question, titles in questions:
                got = titles & set(search(question, k))
                both += got == titles
                found += len(got) / len(titles)
            n = len(questions)
            print(f"| {name} | {k} | {100 * both / n:.0f}% | {found / n:.2f} |")


if __name__ == "__main__":
    try:
        main()
    except AssistantError as exc:
        sys.exit(f"error: {exc}")
