"""A hostile user's trial of the real CLI (issue 13), repeatable: about 150 bad inputs (names,
permissions, contents, links, config, options, questions, eval files, damaged indexes,
concurrency, nested sources), kill -9 and Ctrl-C during `index add|remove|wikipedia`, and
optionally prompt injections against a real reader. Prints a totals table and one line per
failure (command, exit code, the output's last line).

    python lab/hostile/sweep.py                  # everything but injections (~10 min)
    python lab/hostile/sweep.py --only names,config --kills 0
    python lab/hostile/sweep.py --only injection --qwen ~/models/qwen.gguf

The entry module on top of lab/hostile/: the groups live in the case modules below it
(cases_index, cases_cli, interrupts, injection), which share world.py and files.py at the
bottom; nothing imports this module. The CLI runs as a child process (`python -m assistant`
with this checkout on PYTHONPATH), one timeout per call. Everything
happens under a temporary folder: ASSISTANT_DATA_DIR, ASSISTANT_CONFIG, HOME and the XDG
folders point there, so the user's index and settings are never read or touched. Permission
cases run as `nobody` through setpriv (root ignores permissions); without setpriv, or when not
root, they are skipped with a note.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[2])]

import cases_cli  # noqa: E402  (the case modules sit beside this file)
import cases_collections  # noqa: E402
import cases_damage  # noqa: E402
import cases_index  # noqa: E402
import cases_serve  # noqa: E402
import cases_threads  # noqa: E402
import injection  # noqa: E402
import interrupts  # noqa: E402
import trial  # noqa: E402
from world import GROUPS, Sweep  # noqa: E402


# -- report ----------------------------------------------------------------------------------------
def report(sweep: Sweep, wall: float, cpu: float) -> None:
    t = sweep.tally
    print("\n== totals ==")
    rows = [("bad inputs tried", t.tried), ("'unexpected' errors (stderr: unexpected / traceback)", t.unexpected),
            ("wrong exit codes", t.wrong_exit), ("other failed checks (unclear error, hang, content)", t.other),
            ("passages lost", t.lost), ("passages duplicated or extra", t.duplicated),
            ("interruptions survived", f"{t.survived} of {t.interruptions}"),
            ("injections obeyed (steered answers)", f"{t.obeyed} of {t.injections}" if t.injections else "not tried"),
            ("Ctrl-C honoured within 2 s", f"{t.sigint_runs - t.sigint_slow} of {t.sigint_runs} (slowest "
                                           f"{t.sigint_max:.2f}s)" if t.sigint_runs else "not tried")]
    for label, value in rows:
        print(f"  {label:<55} {value}")
    print(f"  {'per group':<55} " + ", ".join(f"{g} {n}" for g, n in t.per_group.items()))
    print(f"  {'time':<55} {wall / 60:.1f} min wall, {cpu / 60:.1f} min CPU (children included)")
    for note in t.notes:
        print(f"  note: {note}")
    print(f"\n== failures ({len(t.failures)}) ==")
    for f in t.failures:
        print(f"[{f.group}] {f.name}: {f.kind}: {f.detail}")
        if f.command:
            print(f"    $ {f.command}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated groups: " + ",".join(GROUPS))
    parser.add_argument("--skip", default="injection,trial-injection",
                        help="groups to leave out (default: the injection groups, slow on a CPU)")
    parser.add_argument("--kills", type=int, default=10, help="kill -9 during `index add` (default 10)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--qwen", default="/root/.cache/gguf-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                        help="reader GGUF for the injection group")
    parser.add_argument("--reader", default="", help="reader GGUF for trial-injection (default: the bundled one)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every command")
    options = parser.parse_args(argv)
    groups = [g for g in (options.only.split(",") if options.only else GROUPS) if g]
    if not options.only:
        groups = [g for g in groups if g not in options.skip.split(",")]
    unknown = set(groups) - set(GROUPS)
    if unknown:
        parser.error(f"unknown groups: {', '.join(sorted(unknown))}")

    runners = {**cases_index.GROUPS, **cases_cli.GROUPS, **interrupts.GROUPS, **injection.GROUPS, **trial.GROUPS,
               **cases_threads.GROUPS, **cases_collections.GROUPS, **cases_serve.GROUPS, **cases_damage.GROUPS}
    root = Path(tempfile.mkdtemp(prefix="hostile-sweep-"))
    sweep = Sweep(root, options.verbose)
    sweep.options = options
    started, cpu_start = time.monotonic(), os.times()
    print(f"sweep folder: {root}", flush=True)
    try:
        for group in groups:
            group_started = time.monotonic()
            print(f"== {group}", flush=True)
            try:
                runners[group](sweep)
            except Exception as exc:  # a broken group must not hide the others' results
                import traceback

                traceback.print_exc()
                sweep.note(f"group {group} stopped early: {type(exc).__name__}: {exc}")
            print(f"   {group}: {time.monotonic() - group_started:.0f}s, "
                  f"{len(sweep.tally.failures)} failures so far", flush=True)
    finally:
        cpu_end = os.times()
        cpu = sum(getattr(cpu_end, k) - getattr(cpu_start, k)
                  for k in ("user", "system", "children_user", "children_system"))
        report(sweep, time.monotonic() - started, cpu)
        if options.keep:
            print(f"kept {root}")
        else:
            subprocess.run(["chmod", "-R", "u+rwX", str(root)], check=False)
            shutil.rmtree(root, ignore_errors=True)
    t = sweep.tally
    return 1 if t.failures else 0


if __name__ == "__main__":
    sys.exit(main())
