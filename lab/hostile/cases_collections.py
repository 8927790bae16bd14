"""Sweep group `collections` (issue 54): named collections under hostile use. kill -9 during
`index add PATH --collection NAME` (with options, with and without --index), then the hint that
`index status` prints run verbatim: the folder must land in exactly the collections asked and
equal a clean build. Double adds (a folder's file alone, before or after its folder, in the same
or other collections; one folder in two collections; a file alone in two) must store every
file once."""
from __future__ import annotations

import collections
import json
import re
import shlex
import signal
import time
from pathlib import Path

from world import Result, Sweep, compare, many_files

GROUP = "collections"
HINT = re.compile(r"\(incomplete: run `([^`]+)` again to finish\)")


def rows(index: Path) -> collections.Counter:
    """(file's absolute path, text) of every passage, a file added alone counted as itself."""
    import lancedb

    if not (index / "passages.lance").exists():
        return collections.Counter()
    kinds = {name: info.get("kind") for name, info in
             json.loads((index / "assistant-index.json").read_text()).get("sources", {}).items()}
    table = lancedb.connect(str(index)).open_table("passages")
    count = table.count_rows()
    data = table.search().select(["source", "path", "text"]).limit(count).to_arrow().to_pylist() if count else []
    return collections.Counter((r["source"] if kinds.get(r["source"]) == "file" else f"{r['source']}/{r['path']}",
                                r["text"]) for r in data)


def sources(sweep: Sweep, index: Path) -> dict:
    result = sweep.run("index", "status", "--index", index, "--json")
    try:
        return json.loads(result.out)["sources"]
    except (ValueError, KeyError):
        return {}


def committed(index: Path) -> int:
    import lancedb

    try:
        return lancedb.connect(str(index)).open_table("passages").count_rows()
    except Exception:  # no table yet
        return 0


def kill_during(sweep: Sweep, args: tuple, index: Path, floor: int = 0) -> bool:
    """Start `args`, kill -9 once more than `floor` passages are committed; whether it was killed."""
    started = time.monotonic()
    proc = sweep.popen(*args)
    while committed(index) <= floor and proc.poll() is None and time.monotonic() - started < 300:
        time.sleep(0.05)
    killed = proc.poll() is None
    if killed:
        proc.kill()
    sweep.finish(proc, list(args), started, timeout=60)
    return killed


def resume_hints(sweep: Sweep) -> None:
    folder, clean = many_files(sweep)
    source = str(folder.resolve())
    default_index = sweep.root / "data" / "index"
    cases = [("work", (), True, [], ["work"]),
             ("home", ("--max-size", "20"), True, [], ["home"]),
             ("solo", (), False, [], ["solo"])]  # the default index: status without --index
    for n, (name, options, own_index, before, expected) in enumerate(cases):
        index = sweep.path(f"resume-{n}") if own_index else default_index
        where = ("--index", index) if own_index else ()
        label = f"resume hint: kill -9 during add --collection {name} {' '.join(options)}".strip()
        floor = 0
        for earlier in before:
            sweep.run("index", "add", folder, "--collection", earlier, *where, timeout=600)
            floor = committed(index)
        sweep.tally.tried += 1
        sweep.tally.per_group[GROUP] += 1
        args = ("index", "add", folder, "--collection", name, *options, *where)
        if not kill_during(sweep, args, index, floor):
            sweep.note(f"{label}: finished before the kill (not judged)")
            continue
        sweep.tally.interruptions += 1
        status = sweep.run("index", "status", *where)
        hints = HINT.findall(status.out)
        if len(hints) != 1:
            sweep.fail(GROUP, label, "check", f"status gives {len(hints)} hints: {status.out[-300:]}", status)
            continue
        words = shlex.split(hints[0])
        wanted = ["--collection", name] if name != "default" else []
        if words[:1] != ["assistant"] or words[4:6] != wanted[:2] or list(options) != words[6:6 + len(options)]:
            sweep.fail(GROUP, label, "check", f"the hint does not name what was asked: {hints[0]}", status)
        resumed = sweep.run(*words[1:], timeout=600)
        ok = sweep.judge(GROUP, f"{label}: the hint run verbatim", resumed, "ok", count=False)
        got = sources(sweep, index).get(source, {})
        if got.get("collections") != expected or got.get("incomplete"):
            sweep.fail(GROUP, label, "check", f"collections after the hint {got.get('collections')} "
                                              f"(incomplete: {bool(got.get('incomplete'))}), expected {expected}",
                       resumed)
            ok = False
        listed = sweep.run("index", "collections", *where)
        shown = sorted(line.split()[0] for line in listed.out.splitlines() if line.strip())
        if shown != sorted(expected):
            sweep.fail(GROUP, label, "check", f"`index collections` lists {shown}, expected {expected}", listed)
            ok = False
        ok = compare(sweep, GROUP, label, rows(index), clean, command=hints[0]) and ok
        sweep.tally.survived += ok
        if not own_index:
            sweep.run("index", "remove", "--collection", name)


def _small_folder(sweep: Sweep) -> tuple[Path, collections.Counter]:
    folder = sweep.path("overlap-docs")
    for rel, text in (("top.md", "# Top\n\nThe heron project ships in May."),
                      ("birds/river.md", "# River\n\nA kingfisher dives by the old mill."),
                      ("birds/marsh.txt", "Reed warblers nest in the marsh."),
                      ("birds/deep/owl.txt", "The barn owl hunts over the meadow at dusk.")):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    clean_index = sweep.path("overlap-clean")
    sweep.run("index", "add", folder, "--index", clean_index, timeout=300)
    return folder, rows(clean_index)


def double_adds(sweep: Sweep) -> None:
    folder, clean = _small_folder(sweep)
    river, birds = folder / "birds" / "river.md", folder / "birds"
    plans = {
        "a folder's file alone, same collection": [(folder, None), (river, None)],
        "a folder's file alone, named collection": [(folder, "work"), (river, "work")],
        "a folder's file alone, other collection": [(folder, "work"), (river, "home")],
        "a file alone, then its folder": [(river, None), (folder, None)],
        "a file alone in home, then its folder in work": [(river, "home"), (folder, "work")],
        "one folder in two collections": [(folder, "work"), (folder, "home")],
        "a file alone in two collections, then its folder": [(river, "a"), (river, "b"), (folder, "c")],
        "a subfolder in another collection": [(folder, "work"), (birds, "home")],
        "a folder after its subfolder in another collection": [(birds, "home"), (folder, "work")],
        "moved file, then the folder again": [(folder, "work"), (river, "home"), (folder, "work"), (river, "home")],
    }
    for n, (label, steps) in enumerate(plans.items()):
        index = sweep.path(f"overlap-{n}")
        results: list[Result] = []
        for path, name in steps:
            results.append(sweep.run("index", "add", path, *(("--collection", name) if name else ()),
                                     "--index", index, timeout=300))
        sweep.tally.tried += 1
        sweep.tally.per_group[GROUP] += 1
        for result in results:
            sweep.judge(GROUP, f"{label}: {result.command()[-60:]}", result, "ok", count=False)
        got = rows(index)
        compare(sweep, GROUP, label, got, clean)
        asked = {name or "default" for _, name in steps}
        listed = sweep.run("index", "collections", "--index", index)
        shown = {line.split()[0] for line in listed.out.splitlines() if line.strip()}
        if shown != asked:
            sweep.fail(GROUP, label, "check", f"collections {sorted(shown)}, asked {sorted(asked)}", listed)


def collection_groups(sweep: Sweep) -> None:
    double_adds(sweep)
    resume_hints(sweep)


GROUPS = {"collections": collection_groups}
