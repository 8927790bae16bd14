"""What the many-folders generator reads per collection: the facts of its files (facts.py, on
each file's source), the subject each file documents (for summaries), and the names its files
never write, taken from manuals outside the collection (options of other commands, settings of
other formats, methods of other Node.js modules, PEPs and modules of other Python releases), for
questions that sound answerable and are not."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Iterator

from lab.personal_docs.convert import man_text

from . import formats
from .collections import NODE_API, WHATSNEW, Collection
from .facts import Fact, info_facts, man_facts, node_facts, note_facts

# manuals outside every collection, read only for names the collections lack
OPTION_POOL_PAGES = ("curl", "gpg", "ssh-keygen", "strace", "objdump")
SETTING_POOL_PAGES = ("systemd.exec", "systemd.service", "systemd.socket")
METHOD_POOL_MODULES = ("fs", "crypto", "http", "stream", "buffer", "process", "https", "tls")
OTHER_RELEASES = ("3.6", "3.7", "3.8", "3.9")


def collection_facts(collection: Collection, root: Path, texts: dict[str, str]) -> list[Fact]:
    """Every fact of the collection's files, read from each file's source (a man page, Node's
    JSON reference) or from the file itself (a Markdown chapter, a text note)."""
    facts: list[Fact] = []
    for item in collection.items:
        if item.how.startswith("man_"):
            facts += man_facts(item.dest, item.source, man_text(item.source), keywords=collection.name == "config-formats")
        elif item.how == "copy" and item.dest.startswith("api/"):
            facts += node_facts(item.dest, Path(item.dest).stem, Path(item.source[: -len(".html")] + ".json.gz"))
        elif item.how in ("info_md", "note_txt"):
            for relative in sorted(name for name in texts if name.startswith(item.dest)):
                raw = (root / relative).read_text(encoding="utf-8")
                if item.how == "info_md":
                    facts += info_facts(relative, item.dest.rstrip("/"), raw)
                else:
                    facts += note_facts(relative, item.dest.rstrip("/").removeprefix("python-"), raw)
    return facts


def file_subjects(collection: Collection, files: list[str]) -> dict[str, str]:
    """file -> the name a summary of it must say (a command, a module, a manual), where one is clear."""
    subjects = {}
    for item in collection.items:
        if item.how.startswith("man_"):
            subjects[item.dest] = item.source
        elif item.how == "copy" and item.dest.startswith("api/"):
            subjects[item.dest] = Path(item.dest).stem
        elif item.how == "info_md":
            subjects.update({f: item.dest.rstrip("/") for f in files if f.startswith(item.dest)})
        elif item.how == "note_txt":
            subjects.update({f: Path(f).stem for f in files if f.startswith(item.dest + "improved-modules/")
                             and Path(f).stem.isalpha()})
    return {file: subject for file, subject in subjects.items() if file in files}


def missing_terms(collection: Collection, facts: list[Fact], rng: random.Random) -> Iterator[tuple[str, str, str, str | None]]:
    """(template set, term, subject, the file it sounds as if it were in) for unanswerable
    questions, most first; the caller keeps those whose term no file of the collection writes."""
    if collection.name == "nodejs-reference":
        yield from _missing_methods(facts, rng)
    elif collection.name == "release-notes":
        yield from _missing_release_items(facts, rng)
    else:
        setting = collection.name == "config-formats"
        yield from _missing_for_subjects(facts, _pool_settings() if setting else _pool_options(),
                                         "MISSING_SETTING" if setting else "MISSING_OPTION", rng)


def _missing_for_subjects(facts: list[Fact], pool: list[str], template_set: str, rng: random.Random):
    per_file: dict[tuple[str, str], int] = {}
    for fact in facts:
        if fact.thing in ("option", "setting"):
            per_file[(fact.subject, fact.file)] = per_file.get((fact.subject, fact.file), 0) + 1
    # each subject once, with the file that documents most of its options (the one a user would open)
    subjects = sorted({subject: file for (subject, file), _n in sorted(per_file.items(), key=lambda kv: kv[1])}.items())
    rng.shuffle(subjects)
    pool = sorted(pool)
    rng.shuffle(pool)
    for n, term in enumerate(pool):
        subject, file = subjects[n % len(subjects)]
        yield template_set, term, subject, file


def _pool_options() -> list[str]:
    names = set()
    for page in OPTION_POOL_PAGES:
        for fact in man_facts(page, page, man_text(page)):
            names |= {a for a in fact.term if a.startswith("--") and len(a) >= 7}
    return sorted(names)


def _pool_settings() -> list[str]:
    names = set()
    for page in SETTING_POOL_PAGES:
        for fact in man_facts(page, page, man_text(page), keywords=True):
            if fact.thing == "setting" and any(c.isupper() for c in fact.term[0][1:]):
                names.add(fact.term[0])
    return sorted(names)


def _missing_methods(facts: list[Fact], rng: random.Random):
    modules = sorted({(f.file, Path(f.file).stem) for f in facts})
    names = set()
    for module in METHOD_POOL_MODULES:
        for fact in node_facts("", module, Path(NODE_API) / f"{module}.json.gz"):
            bare = fact.term[0].rstrip("()").split(".")[-1]
            if fact.thing == "method" and bare[:1].islower() and len(bare) >= 5:
                names.add(bare)
    names = sorted(names)
    rng.shuffle(names)
    rng.shuffle(modules)
    for n, name in enumerate(names):
        file, module = modules[n % len(modules)]
        yield "MISSING_METHOD", f"{module}.{name}", module, file


def _missing_release_items(facts: list[Fact], rng: random.Random):
    versions = sorted({f.subject for f in facts})
    items = []
    for release in OTHER_RELEASES:
        _title, sections = formats.rst_sections((Path(WHATSNEW) / f"{release}.rst.txt").read_text(encoding="utf-8"))
        for section, sub, _body in sections:
            if sub.startswith("PEP ") and ":" in sub:
                items.append(("MISSING_PEP", sub.split(":")[0]))
            elif section == "Improved Modules" and sub.isidentifier() and len(sub) >= 4:
                items.append(("MISSING_MODULE", sub))
    items = sorted(set(items))
    rng.shuffle(items)
    for n, (template_set, term) in enumerate(items):
        yield template_set, term, versions[n % len(versions)], None
