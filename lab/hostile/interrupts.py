"""Sweep group: kill -9 and Ctrl-C (SIGINT to the process group, as a terminal sends it) at
random points during `index add`, `index remove` and `index wikipedia`.

After each interruption the index must still answer `index status` and list the source (or,
killed before anything was written, say plainly that there is no index). Interruptions come in
chains (the next run resumes what the last one left); a chain ends with a run to the end, and
the index must then equal a clean build: the same (path, text) rows, none lost, none twice. An
interruption is survived when both hold."""
from __future__ import annotations

import collections
import json
import os
import random
import shutil
import signal
import time
from pathlib import Path

from world import Result, Sweep, base_index, compare, many_files, passage_rows

DUMP = Path("/work/shared/data/mediawiki_xml/ltgwiki-smallwiki-latest-pages-articles.xml")
DUMP_LIMIT = "100"


def interrupt(sweep: Sweep, args: tuple, delay: float, sig: int) -> tuple[bool, Result]:
    """Start the CLI, send `sig` to its process group after `delay` s; (interrupted?, result)."""
    started = time.monotonic()
    proc = sweep.popen(*args)
    deadline = started + delay
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    interrupted = proc.poll() is None
    if interrupted:
        os.killpg(proc.pid, sig)
    return interrupted, sweep.finish(proc, list(args), started, timeout=60)


def usable(sweep: Sweep, index: Path, source: str, name: str) -> bool:
    """`index status` works after an interruption and lists the source; killed before the
    index existed, a plain "no index" line is right too."""
    result = sweep.run("index", "status", "--index", index, "--json")
    if result.rc != 0 and result.err.startswith("error: no index at") and \
            not (index / "assistant-index.json").exists():
        return True
    if not sweep.judge("interrupts", f"status after {name}", result, "ok", count=False):
        return False
    if source:
        try:
            sources = json.loads(result.out)["sources"]
        except (ValueError, KeyError):
            sources = {}
        if source not in sources:
            sweep.fail("interrupts", f"status after {name}", "check",
                       f"source {source} not listed: {list(sources)}", result)
            return False
    return True


def series(sweep: Sweep, label: str, args: tuple, signals: list[int], delay, index: Path, source: str,
           clean: collections.Counter, reset, chain: int, already_done: str = "") -> None:
    """Interrupt `args` once per entry of `signals` (`delay()` seconds after its start), in
    chains of `chain`; a run that ends before its signal ends the chain early (not counted).
    `already_done`: the start of the error a re-run may rightly give when the interrupted run
    had finished its work (a remove killed after the removal: "no source ...")."""
    pending: list[bool] = []

    def end_chain(final: Result) -> None:
        finished = already_done and final.rc == 1 and final.err.startswith(already_done)
        ok = finished or sweep.judge("interrupts", f"{label}: run to the end", final, "ok", count=False)
        equal = compare(sweep, "interrupts", f"{label} after {len(pending)} interruptions", passage_rows(index),
                        clean, command=final.command())
        survived = sum(pending) if ok and equal else 0
        sweep.tally.survived += survived
        if survived < len(pending):
            sweep.fail("interrupts", f"{label}: chain of {len(pending)}", "interruption",
                       f"{len(pending) - survived} of {len(pending)} interruptions not survived", command=final.command())
        pending.clear()
        if done < len(signals):  # the last chain's index stays, for a question after it
            reset()

    reset()
    done = attempts = 0
    while done < len(signals) and attempts < 2 * len(signals) + 2:
        attempts += 1
        sig, wait = signals[done], delay()
        name = f"{label} {signal.Signals(sig).name} at {wait:.1f}s"
        interrupted, result = interrupt(sweep, args, wait, sig)
        if not interrupted:
            print(f"   {name}: finished before the signal (ends the chain, not counted)", flush=True)
            end_chain(result)
            continue
        done += 1
        sweep.tally.interruptions += 1
        ok = not result.timed_out
        if result.timed_out:
            sweep.fail("interrupts", name, "hang", "still running 60 s after the signal", result)
        if "Traceback" in result.err or "unexpected" in result.err.lower():
            sweep.fail("interrupts", name, "unexpected", result.last_line(), result)
            ok = False
        if sig == signal.SIGINT and result.rc == 0 and "written" not in result.out:
            sweep.fail("interrupts", name, "exit", "exit 0 after Ctrl-C stopped the run", result)
        ok = usable(sweep, index, source, name) and ok
        committed = sum(passage_rows(index).values())
        print(f"   {name}: exit {result.rc}, index usable: {ok}, {committed} passages committed "
              f"(a clean build has {sum(clean.values())})", flush=True)
        pending.append(ok)
        if len(pending) == chain or done == len(signals):
            end_chain(sweep.run(*args, timeout=600))


def interrupts(sweep: Sweep) -> None:
    rng = random.Random(sweep.options.seed + 1)
    folder, clean = many_files(sweep)
    full = sweep.clean_build_seconds
    started = time.monotonic()  # a run with nothing to do: start-up, model load, walk
    sweep.run("index", "add", folder, "--index", sweep.path("many-clean"))
    startup = min(time.monotonic() - started, 0.8 * full)
    print(f"   clean build of {folder.name}: {full:.1f}s, {sum(clean.values())} passages; "
          f"a run with nothing to do: {startup:.1f}s", flush=True)

    # index add: kill -9 at random points, then Ctrl-C twice; chains of four
    index = sweep.path("kill-add")
    kills = sweep.options.kills
    series(sweep, "index add", ("index", "add", folder, "--index", index),
           [signal.SIGKILL] * kills + [signal.SIGINT] * 2, lambda: rng.uniform(0.9 * startup, 0.8 * full),
           index, str(folder), clean, reset=lambda: shutil.rmtree(index, ignore_errors=True), chain=4)
    sweep.case("interrupts", "ask after the interrupted builds", "ask", "What is note 7 about?", "-s", "rag",
               "--k", "2", "--index", index, timeout=240, count=False)

    # index remove of one of two sources: the other must stay whole, the removed one go entirely
    other = sweep.path("base-docs")
    other_index = base_index(sweep)
    template = sweep.path("kill-remove-template")
    shutil.copytree(sweep.path("many-clean"), template)
    sweep.run("index", "add", other, "--index", template)
    removing = sweep.path("kill-remove")

    def fresh_remove():
        shutil.rmtree(removing, ignore_errors=True)
        shutil.copytree(template, removing)

    fresh_remove()
    started = time.monotonic()
    sweep.run("index", "remove", folder, "--index", removing)
    remove_seconds = time.monotonic() - started
    series(sweep, "index remove", ("index", "remove", folder, "--index", removing),
           [signal.SIGKILL] * 3 + [signal.SIGINT], lambda: rng.uniform(0.5 * remove_seconds, remove_seconds),
           removing, str(other), passage_rows(other_index), reset=fresh_remove, chain=1,
           already_done="error: no source")

    # index wikipedia
    wiki_clean = sweep.path("kill-wiki-clean")
    started = time.monotonic()
    sweep.run("index", "wikipedia", DUMP, "--limit", DUMP_LIMIT, "--index", wiki_clean, timeout=600)
    wiki_seconds = time.monotonic() - started
    wiki_index = sweep.path("kill-wiki")
    series(sweep, "index wikipedia", ("index", "wikipedia", DUMP, "--limit", DUMP_LIMIT, "--index", wiki_index),
           [signal.SIGKILL] * 3 + [signal.SIGINT], lambda: rng.uniform(0.9 * startup, 0.8 * wiki_seconds), wiki_index, "",
           passage_rows(wiki_clean), reset=lambda: shutil.rmtree(wiki_index, ignore_errors=True), chain=2)


GROUPS = {"interrupts": interrupts}
