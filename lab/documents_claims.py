"""Questions with their answers, written by the reader from passages of manuals on this machine:
training data for the check that a person's own files state an answer (issue 51).

The grounding encoder learned from Wikipedia paragraphs; a person's files are manuals, notes and
reference pages. Here one fact of a passage of a man page or a page of Python's own documentation
(an option, a number, a version, an address, a path: `facts`) is picked, and the reader writes a
question it answers; the question is kept only when it does not give the fact away (`question_of`).
No file of the personal question set's folder (lab/personal_docs) is used, nor any file the data
rules reserve (a package's README, AUTHORS, NEWS or copyright; a Python package's METADATA or
LICENSE).

    python -m lab.documents_claims --reader GGUF --out FILE [--shard 0/2]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
from pathlib import Path

from index_builder.chunking import iter_chunks
from index_builder.extract import Unreadable, extract

PYDOC_LIBRARY = Path("/usr/share/doc/python3.11/html/library")
MAN1 = Path("/usr/share/man/man1")
# the personal set's folder is made from these (lab/personal_docs/sources.py): never used here
FOLDER_MAN_PAGES = set("bc bzip2 gzip sed grep tar xargs diff patch watch timeout column sqlite3 cscope make scp unzip "
                       "jq date du nl split openssl tee ln chmod kill env nohup join uniq shuf".split())
FOLDER_PY_PAGES = set("json zipfile secrets timeit glob uuid gzip tomllib zoneinfo venv webbrowser sorting ipaddress "
                      "tempfile fnmatch bisect textwrap graphlib fractions".split())
# a passage worth a question: it writes a number, an option, an address or a name
_FACTFUL = re.compile(r"\d|(?<!\w)--?\w|@|\b[A-Z][a-z]+ [A-Z][a-z]+")
PER_DOCUMENT = 3

PROMPT = ("Here is a passage from the documentation of {title}.\n\n{text}\n\n"
          "Write one question that a user of {title} might ask, whose answer is exactly \"{fact}\" according "
          "to this passage. Name {title} in it, use your own words, and do not write the answer in it. "
          "Reply with the question only.")
# the facts a question is written for: an option, or a token with a digit, an @ or a slash
# (a number, version, address or path), the kinds of short answers people ask their manuals for
FACT = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*(?:=\w+)?|(?<![\w.])[\w.+-]*(?:[@/]|\d)[\w.+@/-]*\w|(?<![\w.])\d(?![\w.])")


def facts(passage: str) -> list[str]:
    """The passage's facts that it writes once (an answer that stands twice is not a pick)."""
    found = FACT.findall(passage)
    return [f for f in dict.fromkeys(found) if found.count(f) == 1 and len(f) <= 40]


def man_text(page: str) -> str:
    formatted = subprocess.run(["man", "-P", "cat", page], capture_output=True, check=False,
                               env={"MANWIDTH": "80", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}).stdout
    return subprocess.run(["col", "-bx"], input=formatted, capture_output=True, check=False).stdout.decode("utf-8", "replace")


def documents(seed: int, man_pages: int, py_pages: int) -> list[tuple[str, str, str]]:
    """(source, title, text) of man pages and Python library pages outside the personal folder."""
    rng = random.Random(seed)
    # one of the cloud SDK's thousands of sub-command pages would crowd out every other program
    pages = sorted({p.name.split(".")[0] for p in MAN1.glob("*.1*") if not p.name.startswith("gcloud")}
                   - FOLDER_MAN_PAGES)
    chosen, out = rng.sample(pages, min(len(pages), man_pages * 3)), []
    for page in chosen:
        if sum(1 for s, _, _ in out if s.startswith("man ")) >= man_pages:
            break
        text = man_text(page)
        if len(text.split()) >= 300:
            out.append((f"man {page}", page, text))
    sources = sorted(p for p in PYDOC_LIBRARY.glob("*.html") if p.stem not in FOLDER_PY_PAGES)
    for path in rng.sample(sources, min(len(sources), py_pages)):
        out.append((str(path), path.stem, path.read_text(encoding="utf-8", errors="replace")))
    return out


def passages(source: str, text: str, rng: random.Random) -> list[str]:
    suffix = ".txt" if source.startswith("man ") else ".html"
    try:
        extracted = extract(Path(f"doc{suffix}"), text.encode("utf-8"))
    except Unreadable:
        return []
    chunks = [c.text for c in iter_chunks(extracted.sections) if _FACTFUL.search(c.text) and len(c.text.split()) >= 40]
    return rng.sample(chunks, min(PER_DOCUMENT, len(chunks)))


def question_of(reply: str, fact: str) -> str | None:
    """The reader's question, when it is one and does not give its answer away."""
    line = reply.strip().splitlines()[0].strip().removeprefix("Question:").strip() if reply.strip() else ""
    if not line.endswith("?") or fact.lower() in line.lower() or len(line.split()) < 4:
        return None
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shard", default="0/1", help="K/N: every Nth document from the Kth")
    parser.add_argument("--man-pages", type=int, default=90)
    parser.add_argument("--py-pages", type=int, default=40)
    parser.add_argument("--seed", type=int, default=51)
    args = parser.parse_args()
    from models.reader.llama_reader import Reader

    k, n = (int(x) for x in args.shard.split("/"))
    reader = Reader(args.reader, n_ctx=2048, n_threads=1)
    rng = random.Random(args.seed)
    docs = documents(args.seed, args.man_pages, args.py_pages)
    done = {json.loads(line)["passage"] for line in args.out.read_text().splitlines()} if args.out.exists() else set()
    with args.out.open("a", encoding="utf-8") as out:
        for number, (source, title, text) in enumerate(docs):
            chosen = passages(source, text, rng)
            if number % n != k:
                continue
            for passage in chosen:
                if passage in done or not facts(passage):
                    continue
                fact = rng.choice(facts(passage))
                reply = reader.generate([{"role": "user", "content": PROMPT.format(title=title, text=passage, fact=fact)}],
                                        max_tokens=40).text
                record = {"source": source, "title": title, "passage": passage, "answer": fact,
                          "question": question_of(reply, fact), "others": [f for f in facts(passage) if f != fact]}
                out.write(json.dumps(record) + "\n")
                out.flush()


if __name__ == "__main__":
    main()
