"""Build the grounding check's word rarity table from the training questions' paragraphs.

Every distinct paragraph (title and text) of relevance_data.training_questions (the allowed training
files, less every report and reserved question) counts once; a word's count is the number of those
paragraphs holding it, words as assistant/grounding_features.words writes them. Words seen once are
left out (the table then weighs them as rare as unseen words): a much smaller table.

    python -m research.judge_training.word_rarity_build --data ../shared/data [--out PATH]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Iterable

from models.errors import AssistantError
from models.judges.word_rarity import WordRarity, shipped_rarity_path

from assistant.grounding.features import stemmed_words
from .relevance_data import check_data_dir, training_questions

MIN_COUNT = 2


def rarity_table(paragraphs: Iterable[tuple[str, str]], min_count: int = MIN_COUNT) -> WordRarity:
    """The table over (title, text) paragraphs, each distinct one counted once."""
    seen: set[tuple[str, str]] = set()
    counts: Counter[str] = Counter()
    for title, text in paragraphs:
        if (title, text) in seen:
            continue
        seen.add((title, text))
        counts.update(set(stemmed_words(f"{title} {text}")))
    if not seen:
        raise AssistantError("no paragraphs to count words in")
    return WordRarity(len(seen), {w: c for w, c in sorted(counts.items()) if c >= min_count})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=shipped_rarity_path())
    args = parser.parse_args(argv)
    try:
        questions = training_questions(check_data_dir(args.data))
        table = rarity_table((p.title, p.text) for q in questions for p in q.example.paragraphs)
        args.out.write_text(json.dumps(table.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n",
                            encoding="utf-8")
    except (AssistantError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{len(questions)} questions, {table.documents} paragraphs, {len(table.counts)} stemmed_words -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
