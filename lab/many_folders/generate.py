"""Write the many-folders benchmark's questions from the materialised collections (issue 62).

    PYTHONPATH=. .venv/bin/python -m lab.many_folders.generate DEST [--out lab/many_folders/questions.jsonl]

DEST is what materialise.py made. Each question comes from the documents' own structure
(facts.py), worded by one of several templates (wording.py), and is kept only when an automatic
check passes: every answer part occurs, as the scoring matches it, in the holding file's text as
index_builder.extract reads it; an unanswerable question's key term occurs in no file of its
collection. Deterministic: the same documents give the same file.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import wording
from .collections import COLLECTIONS, Collection
from .pools import file_subjects, collection_facts, missing_terms

QUESTIONS = Path(__file__).with_name("questions.jsonl")
# questions per collection and kind (fewer when the documents do not give as many)
COUNTS = {"one_fact": 40, "two_facts": 12, "two_files": 12, "folder": 14, "unanswerable": 36}
# a term a folder question may ask about: a name, not a word of the language ("Storage", "COLUMNS")
_NAME_LIKE = re.compile(r"[-_.\d ]|[a-z][A-Z]")
_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_STOP = set("the and for with that this from into when which will have been their there these those than then "
            "other about such only also more most some each used using file files data value values option contributed "
            "improved modules description synopsis commands stability following".split())


@dataclass
class Folder:
    """A materialised collection: each file's extracted text, read as the product reads it."""
    collection: Collection
    root: Path
    texts: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, collection: Collection, dest: Path) -> "Folder":
        from index_builder.extract import extract

        root = dest / collection.name
        if not root.is_dir():
            raise SystemExit(f"error: {root} is missing; run lab.many_folders.materialise {dest} first")
        texts = {}
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            extracted = extract(path, path.read_bytes())
            texts[path.relative_to(root).as_posix()] = "\n".join(
                [extracted.title] + [f"{s.heading}\n{s.text}" for s in extracted.sections])
        return cls(collection, root, texts)

    def holds(self, file: str, alias: str) -> bool:
        from lab.personal_scoring import alias_in

        return alias_in(alias, self.texts.get(file, ""))

    def mentioning(self, term: str, exact_case: bool = False) -> list[str]:
        pattern = re.compile(rf"(?<![\w-]){re.escape(term)}(?![\w-])", 0 if exact_case else re.I)
        return [name for name, text in self.texts.items() if pattern.search(text.replace("\u2212", "-"))]


def _checked(folder: Folder, fact, answer: tuple[str, ...]) -> list[str]:
    """The answer's aliases the holding file writes (the first of them first); [] when none."""
    return [alias for alias in answer if folder.holds(fact.file, alias)]


def _record(folder: Folder, kind: str, question: str, parts: list[list[str]], holding: list[list[str]], **extra) -> dict:
    return {"collection": folder.collection.name, "split": folder.collection.split, "kind": kind,
            "question": " ".join(question.split()), "answers": parts, "holding_files": holding, **extra}


def _answer(fact) -> tuple[str, ...]:
    return fact.term if fact.kind == "lookup" else fact.value


def _spread(facts: list, rng: random.Random) -> list:
    """The facts shuffled, file by file in turn, so that a collection's questions cover its files."""
    by_file: dict[str, list] = {}
    for fact in facts:  # a fact, or (fact, its checked aliases)
        by_file.setdefault((fact[0] if isinstance(fact, tuple) else fact).file, []).append(fact)
    queues = [by_file[name] for name in sorted(by_file)]
    for queue in queues:
        rng.shuffle(queue)
    rng.shuffle(queues)
    out = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.pop())
    return out


def usable_facts(folder: Folder, facts: list) -> list:
    """Facts whose answer the holding file writes, and whose description names one term only
    (a description found twice in the collection, or in two files, is ambiguous)."""
    seen: dict[str, int] = {}
    for fact in facts:
        if fact.kind == "lookup":
            seen[fact.text.lower()] = seen.get(fact.text.lower(), 0) + 1
    kept = []
    for fact in facts:
        if fact.kind == "lookup" and (seen[fact.text.lower()] > 1 or re.search(r"\b(help|version)\b", fact.text, re.I)):
            continue
        aliases = _checked(folder, fact, _answer(fact))
        if aliases and folder.holds(fact.file, fact.term[0]):
            kept.append((fact, aliases))
    return kept


def fact_questions(folder: Folder, facts: list) -> list[dict]:
    name = folder.collection.name
    rng = random.Random(f"{name}/facts")
    spread = _spread(usable_facts(folder, facts), rng)
    # pairs first (the spread takes the files in turn, so two neighbours are mostly two files)
    pairs_same, pairs_two, used = [], [], set()
    for i, (first, a1) in enumerate(spread):
        if i in used:
            continue
        for j in range(i + 1, len(spread)):
            second, a2 = spread[j]
            if j in used or set(a1) & set(a2) or first.term == second.term:
                continue
            same = second.file == first.file
            target = pairs_same if same else pairs_two
            if len(target) >= COUNTS["two_facts" if same else "two_files"]:
                continue
            target.append(((first, a1), (second, a2)))
            used |= {i, j}
            break
    out = []
    singles = [fact for i, fact in enumerate(spread) if i not in used]
    for fact, aliases in singles[: COUNTS["one_fact"]]:
        out.append(_record(folder, "one_fact", wording.question_for(fact, rng), [aliases], [[fact.file]],
                           source=f"{fact.kind}:{fact.thing}"))
    for kind, pairs in (("two_facts", pairs_same), ("two_files", pairs_two)):
        for (first, a1), (second, a2) in pairs:
            text = wording.joined(wording.question_for(first, rng), wording.question_for(second, rng), rng)
            out.append(_record(folder, kind, text, [a1, a2], [[first.file], [second.file]],
                               source=f"{first.kind}:{first.thing}+{second.kind}:{second.thing}"))
    return out


def folder_questions(folder: Folder, facts: list) -> list[dict]:
    """Questions about the folder itself: how many files of a kind or in a subfolder, which files
    (or how many) mention a term, a file's summary."""
    from assistant.folder.asks import FILE_KINDS

    rng = random.Random(f"{folder.collection.name}/folder")
    files = sorted(folder.texts)
    out = []
    for _key, (_single, plural, suffixes) in FILE_KINDS.items():
        count = sum(1 for f in files if f.lower().endswith(suffixes))
        if count:
            out.append(_record(folder, "folder", rng.choice(wording.FOLDER_COUNT).format(plural=plural),
                               [_count_aliases(count)], [], expected_count=count, source="count-files"))
    places = sorted({f.split("/")[0] for f in files if "/" in f})
    for place in places if len(places) > 1 else []:
        count = sum(1 for f in files if f.startswith(place + "/"))
        out.append(_record(folder, "folder", rng.choice(wording.FOLDER_COUNT_PLACE).format(place=place),
                           [_count_aliases(count)], [], expected_count=count, source="count-place"))
    terms = sorted({term for fact in facts for term in fact.term if len(term) >= 4 and _NAME_LIKE.search(term)})
    rng.shuffle(terms)
    which, how_many = [], []
    for term in terms:
        holding = folder.mentioning(term, exact_case=True)
        if 1 <= len(holding) <= 4 and len(holding) < len(files) and len(which) < 5:
            which.append((term, holding))
        elif 2 <= len(holding) <= 8 and len(holding) < len(files) and len(how_many) < 3:
            how_many.append((term, holding))
    for term, holding in which:
        out.append(_record(folder, "folder", rng.choice(wording.FOLDER_WHICH).format(term=term),
                           [[f, f.split("/")[-1]] for f in holding], [holding], expected_files=holding, key_term=term,
                           source="which"))
    for term, holding in how_many:
        out.append(_record(folder, "folder", rng.choice(wording.FOLDER_HOW_MANY).format(term=term),
                           [_count_aliases(len(holding))], [holding], expected_count=len(holding),
                           expected_files=holding, key_term=term, source="how-many"))
    subjects = file_subjects(folder.collection, files)
    for file in rng.sample(sorted(subjects), min(3, len(subjects))):
        words = _summary_words(folder.texts[file], subjects[file])
        if words and folder.holds(file, subjects[file]):
            out.append(_record(folder, "folder", rng.choice(wording.FOLDER_SUMMARY).format(file=file),
                               [[subjects[file]], words], [[file]], source="summary"))
    return out[: COUNTS["folder"]]


def _count_aliases(count: int) -> list[str]:
    return [str(count)] + ([_NUMBER_WORDS[count]] if count < len(_NUMBER_WORDS) else [])


def _summary_words(text: str, subject: str) -> list[str]:
    """Up to four of the longest content words of the file's opening: a summary names some."""
    body = " ".join(text.split("\n", 1)[-1].split()[:60])  # the opening after the title line
    words = sorted({w for w in re.findall(r"(?<![\w-])[a-z]{6,}(?![\w-])", body) if w not in _STOP
                    and w.lower() != subject.lower()}, key=lambda w: (-len(w), w))
    return words[:4]


def unanswerable_questions(folder: Folder, facts: list) -> list[dict]:
    """Questions the collection cannot answer but that sound as if it could: a real subject of
    the folder asked about an option, setting, method, PEP or module its files never name."""
    rng = random.Random(f"{folder.collection.name}/missing")
    out = []
    for template_set, term, subject, near in missing_terms(folder.collection, facts, rng):
        if folder.mentioning(term):
            continue
        question = rng.choice(getattr(wording, template_set)).format(term=term, subject=subject)
        out.append(_record(folder, "unanswerable", question, [], [], near_file=near, key_term=term,
                           source=template_set.lower()))
        if len(out) >= COUNTS["unanswerable"]:
            break
    return out


def generate(dest: Path, names: list[str] | None = None) -> list[dict]:
    questions = []
    for name in names or list(COLLECTIONS):
        folder = Folder.read(COLLECTIONS[name], dest)
        facts = collection_facts(folder.collection, folder.root, folder.texts)
        made = (fact_questions(folder, facts) + folder_questions(folder, facts)
                + unanswerable_questions(folder, facts))
        for number, record in enumerate(made, 1):
            questions.append({"id": f"{name}-{number:03d}", **record})
    return questions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="the folder materialise.py wrote")
    parser.add_argument("--out", type=Path, default=QUESTIONS)
    args = parser.parse_args(argv)
    questions = generate(args.dest)
    args.out.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    counts: dict[tuple[str, str], int] = {}
    for q in questions:
        counts[(q["collection"], q["kind"])] = counts.get((q["collection"], q["kind"]), 0) + 1
    for name in COLLECTIONS:
        print(name, {kind: counts.get((name, kind), 0) for kind in COUNTS})
    unanswerable = sum(q["kind"] == "unanswerable" for q in questions)
    print(f"{len(questions)} questions ({unanswerable} unanswerable, {100 * unanswerable / max(1, len(questions)):.0f}%) "
          f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
