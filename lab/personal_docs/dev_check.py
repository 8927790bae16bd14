"""Check the dev questions against the dev folder as the product extracts it (no model).

    PYTHONPATH=. .venv/bin/python -m lab.personal_docs.dev_check /tmp/personal-dev [--questions FILE]

For every answerable question, each part has an alias that a holding file's extracted text names
(the scoring's own matcher, lab/personal_scoring.alias_in); a "which files" question's expected
files are exactly the files that name its term; a count question's count is the folder's; an
unanswerable question's fact (ABSENT below) is named by no file of the folder, and its near file,
when it has one, is in the folder and does not state it either. One summary line; exit 1 on a failure.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from research.evaluation.personal_set import load_personal
from lab.personal_scoring import alias_in

QUESTIONS = Path(__file__).with_name("dev_questions.jsonl")

# "which of my files mention X" questions: X; count questions: the suffix counted
FOLDER_TERMS = {"dev-folder-02": "Torbjorn Granlund", "dev-folder-03": "OpenSSL"}
FOLDER_COUNTS = {"dev-folder-01": ".pdf"}
# unanswerable questions: (terms no file of the folder names, terms the near file does not name);
# a term "re:PATTERN" is a regular expression (case-insensitive)
ABSENT = {
    "dev-none-01": (["Stallman", "list directory contents"], []),
    "dev-none-02": (["stash"], []),
    "dev-none-03": (["tmux"], []),
    "dev-none-04": (["wget"], []),
    "dev-none-05": (["port 22", "22/tcp"], ["22"]),
    "dev-none-06": (["James Youngman", "Eric Decker", "Jay Plett", "Tim Wood"], ["Written by", "AUTHOR", "AUTHORS"]),
    "dev-none-07": (["3.19", "3.19.0"], ["re:release \\d"]),
    "dev-none-08": (["bug-coreutils", "bug-sort"], [r"re:[\w.+-]+@[\w-]+\.[a-z]+"]),
    "dev-none-09": (["Lasse Collin", "Igor Pavlov"], ["Written by", "AUTHOR", "AUTHORS"]),
    "dev-none-10": (["Eric S. Raymond", "Raymond", "Gustavo Niemeyer"], ["author", "written by"]),
    "dev-none-11": (["131072", "131,072", "128 KiB"], ["re:field_size_limit[^.]*\\d"]),
    "dev-none-12": (["GID 50", "gid 50", "staff:x:50"], ["50", "GID"]),
}


def folder_texts(folder: Path) -> dict[str, str]:
    """Folder-relative path -> the text index_builder extracts (title, then headings and texts)."""
    from index_builder.extract import extract

    texts = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        extracted = extract(path, path.read_bytes())
        texts[path.relative_to(folder).as_posix()] = "\n".join(
            [extracted.title] + [f"{s.heading}\n{s.text}" for s in extracted.sections])
    return texts


def names(term: str, text: str) -> bool:
    if term.startswith("re:"):
        return re.search(term[3:], text, re.IGNORECASE) is not None
    return alias_in(term, text)


def problems(question, texts: dict[str, str], near_file: str | None = None) -> list[str]:
    """What is wrong with one question ([] when its gold is borne out by the folder)."""
    out = []
    if question.kind == "unanswerable":
        if question.id not in ABSENT:
            return ["no ABSENT entry"]
        anywhere, near = ABSENT[question.id]
        out += [f"'{t}' is in {f}" for t in anywhere for f, text in texts.items() if names(t, text)]
        if near_file:
            if near_file not in texts:
                return out + [f"near file {near_file} is not in the folder"]
            out += [f"near file states '{t}'" for t in near if names(t, texts[near_file])]
        return out
    missing = sorted(question.all_holding() - set(texts))
    if missing:
        return [f"holding file not in the folder: {', '.join(missing)}"]
    if question.id in FOLDER_TERMS:
        having = sorted(f for f, text in texts.items() if names(FOLDER_TERMS[question.id], text))
        if having != sorted(question.expected_files):
            out.append(f"files naming '{FOLDER_TERMS[question.id]}' are {having}, "
                       f"expected {sorted(question.expected_files)}")
        return out
    if question.id in FOLDER_COUNTS:
        count = sum(f.endswith(FOLDER_COUNTS[question.id]) for f in texts)
        if count != question.expected_count or not any(alias_in(str(count), a) for a in question.answers[0]):
            out.append(f"the folder has {count} {FOLDER_COUNTS[question.id]} files, gold {question.expected_count}")
        return out
    if question.expected_files or question.expected_count is not None:
        return ["a folder question the checker has no term or count for"]
    for part, aliases in enumerate(question.answers):
        holding = question.holding_of(part)
        if not holding:
            out.append(f"part {part + 1} has no holding file")
        elif not any(alias_in(a, texts[f]) for a in aliases for f in holding):
            out.append(f"part {part + 1} ({aliases[0]!r}) is in none of {holding}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the built dev folder (build_folder.py DEST --set dev)")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    args = parser.parse_args(argv)
    questions = load_personal(args.questions)
    records = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    near = {record["id"]: record.get("near_file") for record in records}
    texts = folder_texts(args.folder)
    failed = 0
    for question in questions:
        found = problems(question, texts, near.get(question.id))
        if found:
            failed += 1
            print(f"  {question.id}: {'; '.join(found)}")
    kinds = {}
    for question in questions:
        kinds[question.kind] = kinds.get(question.kind, 0) + 1
    answerable = sum(q.answerable for q in questions)
    print(f"dev_check: {len(questions) - failed}/{len(questions)} questions borne out by {len(texts)} files "
          f"({answerable} answerable, {len(questions) - answerable} unanswerable; "
          + ", ".join(f"{k} {n}" for k, n in kinds.items()) + ")" + (f"; {failed} FAILED" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
