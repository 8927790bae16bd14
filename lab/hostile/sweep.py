"""A hostile user's trial of the real CLI (issue 13), repeatable: about 150 bad inputs (names,
permissions, contents, links, config, options, questions, eval files, damaged indexes,
concurrency, nested sources), kill -9 and Ctrl-C during `index add|remove|wikipedia`, and
optionally prompt injections against a real reader. Prints a totals table and one line per
failure (command, exit code, the output's last line).

    .venv/bin/python scripts/hostile_sweep.py                  # everything but injections (~10 min)
    .venv/bin/python scripts/hostile_sweep.py --only names,config --kills 0
    .venv/bin/python scripts/hostile_sweep.py --only injection --qwen ~/models/qwen.gguf

The CLI runs as a child process (`.venv/bin/assistant`), one timeout per call. Everything
happens under a temporary folder: ASSISTANT_DATA_DIR, ASSISTANT_CONFIG, HOME and the XDG
folders point there, so the user's index and settings are never read or touched. Permission
cases run as `nobody` through setpriv (root ignores permissions); without setpriv, or when not
root, they are skipped with a note.
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ASSISTANT = REPO / ".venv" / "bin" / "assistant"
# the CLI's catch-all ("error: unexpected KeyError: ...") or a traceback; not click's own
# "Got unexpected extra argument", which is a usage error
UNEXPECTED = re.compile(r"Traceback|unexpected (?!extra argument)", re.IGNORECASE)
WARNING = re.compile(r"^.*\b\w*Warning: .*$", re.MULTILINE)  # Python's warnings.warn lines
NOBODY = 65534
MAX_ERROR_CHARS = 600  # an error line longer than this buries what to do (paths included)
GROUPS = ["names", "contents", "special", "perms", "config", "options", "questions", "eval", "damaged",
          "concurrency", "nesting", "interrupts", "injection"]


@dataclass
class Result:
    args: list
    rc: int
    out: str
    err: str
    seconds: float
    timed_out: bool = False

    def command(self) -> str:
        shown = [repr(a)[2:-1] if isinstance(a, bytes) else str(a) for a in self.args]  # bytes: escaped
        text = shlex.join(shown)
        return text if len(text) < 300 else text[:300] + "..."

    def last_line(self) -> str:
        lines = [line for line in (self.err or self.out).strip().splitlines() if line.strip()]
        line = lines[-1] if lines else "(no output)"
        return line if len(line) < 400 else line[:400] + "..."

    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


@dataclass
class Failure:
    group: str
    name: str
    kind: str  # unexpected, exit, hang, unclear, check, lost, duplicated, interruption, injection
    detail: str
    command: str = ""


@dataclass
class Tally:
    tried: int = 0
    unexpected: int = 0
    wrong_exit: int = 0
    other: int = 0
    lost: int = 0
    duplicated: int = 0
    interruptions: int = 0
    survived: int = 0
    injections: int = 0
    obeyed: int = 0
    notes: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    per_group: collections.Counter = field(default_factory=collections.Counter)


class Sweep:
    """The temp world, the CLI runner and the tally of what went wrong."""

    def __init__(self, root: Path, verbose: bool = False):
        self.root = root
        self.verbose = verbose
        self.tally = Tally()
        self._counted: set[tuple[str, str, str]] = set()
        root.chmod(0o755)  # `nobody` must reach its own folders below
        for sub in ("data", "home", "xdg-config", "xdg-data", "xdg-cache", "work"):
            (root / sub).mkdir(exist_ok=True)
            (root / sub).chmod(0o755)
        self.config = root / "config.toml"
        self.config.write_text("")
        self.config.chmod(0o644)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
        self.env.update(
            ASSISTANT_DATA_DIR=str(root / "data"), ASSISTANT_CONFIG=str(self.config),
            HOME=str(root / "home"), XDG_CONFIG_HOME=str(root / "xdg-config"),
            XDG_DATA_HOME=str(root / "xdg-data"), XDG_CACHE_HOME=str(root / "xdg-cache"),
            HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ASSISTANT_N_THREADS="1",
            ASSISTANT_EMBEDDER_BACKEND="onnx", ASSISTANT_MAX_ANSWER_TOKENS="16", COLUMNS="100")
        self.can_drop_root = os.geteuid() == 0 and shutil.which("setpriv") is not None

    # -- running the CLI -------------------------------------------------------------------
    def path(self, *parts: str) -> Path:
        return self.root.joinpath("work", *parts)

    def _argv(self, args, nobody: bool) -> list:
        argv = [str(ASSISTANT), *[a if isinstance(a, bytes) else str(a) for a in args]]
        if nobody:
            argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]
        return argv

    def _env(self, env: dict | None, nobody: bool) -> dict:
        merged = dict(self.env)
        for key, value in (env or {}).items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = str(value)
        if nobody:  # a user of their own: home and XDG folders they can write
            home = self.nobody_home()
            merged.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                          XDG_DATA_HOME=str(home / ".local/share"), XDG_CACHE_HOME=str(home / ".cache"))
        return merged

    def nobody_home(self) -> Path:
        home = self.root / "nobody-home"
        if not home.exists():
            for sub in ("", ".config", ".local", ".local/share", ".cache"):
                (home / sub).mkdir(exist_ok=True)
                os.chown(home / sub, NOBODY, NOBODY)
        return home

    def run(self, *args, env: dict | None = None, timeout: float = 120, nobody: bool = False,
            cwd: Path | None = None) -> Result:
        started = time.monotonic()
        try:
            done = subprocess.run(self._argv(args, nobody), env=self._env(env, nobody), cwd=cwd or self.root,
                                  capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
            rc, out, err, timed_out = done.returncode, done.stdout, done.stderr, False
        except subprocess.TimeoutExpired as exc:
            rc, out, err, timed_out = 124, exc.stdout or b"", exc.stderr or b"", True
        result = Result(list(args), rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                        time.monotonic() - started, timed_out)
        if self.verbose:
            print(f"    [{result.seconds:5.1f}s rc={rc}] {result.command()} -> {result.last_line()}", flush=True)
        return result

    def popen(self, *args, env: dict | None = None, nobody: bool = False) -> subprocess.Popen:
        return subprocess.Popen(self._argv(args, nobody), env=self._env(env, nobody), cwd=self.root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                start_new_session=True)

    def finish(self, proc: subprocess.Popen, args: list, started: float, timeout: float = 300) -> Result:
        try:
            out, err = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            timed_out = True
        result = Result(list(args), proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                        time.monotonic() - started, timed_out)
        if self.verbose:
            print(f"    [{result.seconds:5.1f}s rc={result.rc}] (background) {result.command()} -> "
                  f"{result.last_line()}", flush=True)
        return result

    # -- judging ---------------------------------------------------------------------------
    def case(self, group: str, name: str, *args, expect: str = "ok", check=None, count: bool = True,
             known: str = "", **run_options) -> Result:
        """Run the CLI once and judge it: `expect` ok (exit 0), error (non-zero and a clear
        `error:` line) or any (no judgement of the exit code); `check(result)` returns a problem
        (str or list of str) or None."""
        result = self.run(*args, **run_options)
        self.judge(group, name + (f" [known: {known}]" if known else ""), result, expect, check, count)
        return result

    def judge(self, group: str, name: str, result: Result, expect: str = "ok", check=None,
              count: bool = True) -> bool:
        """Record `result` as one bad input; returns whether it passed."""
        if count:
            self.tally.tried += 1
            self.tally.per_group[group] += 1
        before = len(self.tally.failures)
        if result.timed_out:
            self.fail(group, name, "hang", f"no answer within {result.seconds:.0f}s", result)
        if UNEXPECTED.search(result.err):
            self.fail(group, name, "unexpected", result.last_line(), result)
        elif WARNING.search(result.err):
            self.fail(group, name, "check", "a library warning reached the user: "
                      + WARNING.search(result.err).group(0)[:200], result)
        if expect == "ok" and result.rc != 0 and not result.timed_out:
            self.fail(group, name, "exit", f"exit {result.rc} for a case that should succeed: "
                                           f"{result.last_line()}", result)
        if expect == "error":
            if result.rc == 0:
                self.fail(group, name, "exit", f"exit 0 for a case that should fail: {result.last_line()}", result)
            elif not result.timed_out and not UNEXPECTED.search(result.err):
                lines = result.error_lines()
                if not lines or not lines[-1].startswith("error: ") or len(lines) > 1:
                    self.fail(group, name, "unclear", f"error is not one `error:` line: {lines[-3:]}", result)
                elif len(lines[-1]) > MAX_ERROR_CHARS:
                    self.fail(group, name, "unclear", f"an error line of {len(lines[-1])} characters", result)
        if check is not None and not result.timed_out:
            problems = check(result)
            for problem in ([problems] if isinstance(problems, str) else problems or []):
                self.fail(group, name, "check", problem, result)
        return len(self.tally.failures) == before

    def fail(self, group: str, name: str, kind: str, detail: str, result: Result | None = None,
             command: str = "") -> None:
        # each case counts at most once per counter; lost, duplicated, interruption and
        # injection failures have counters of their own
        counter = {"unexpected": "unexpected", "exit": "wrong_exit", "hang": "other", "unclear": "other",
                   "check": "other"}.get(kind)
        if counter and (group, name, counter) not in self._counted:
            self._counted.add((group, name, counter))
            setattr(self.tally, counter, getattr(self.tally, counter) + 1)
        self.tally.failures.append(Failure(group, name, kind, detail, command or (result.command() if result else "")))
        if self.verbose:
            print(f"    FAIL [{group}] {name}: {kind}: {detail}", flush=True)

    def note(self, text: str) -> None:
        self.tally.notes.append(text)
        print(f"  note: {text}", flush=True)


# -- the index as rows ----------------------------------------------------------------------------
def passage_rows(index: Path) -> collections.Counter:
    """(absolute path, text) of every passage, counted; empty when there is no passages table."""
    import lancedb

    if not (index / "passages.lance").exists():
        return collections.Counter()
    table = lancedb.connect(str(index)).open_table("passages")
    rows = table.count_rows()
    if not rows:
        return collections.Counter()
    data = table.search().select(["source", "path", "text"]).limit(rows).to_arrow().to_pylist()
    return collections.Counter((os.path.join(r["source"], r["path"]), r["text"]) for r in data)


def passage_fields(index: Path, *names: str) -> list[dict]:
    import lancedb

    table = lancedb.connect(str(index)).open_table("passages")
    rows = table.count_rows()
    return table.search().select(list(names)).limit(rows).to_arrow().to_pylist() if rows else []


def compare(sweep: Sweep, group: str, name: str, got: collections.Counter, clean: collections.Counter,
            command: str = "") -> bool:
    """Count passages lost and duplicated (or extra) against a clean build; True when equal."""
    lost = sum((clean - got).values())
    extra = sum((got - clean).values())
    if lost:
        sweep.tally.lost += lost
        sweep.fail(group, name, "lost", f"{lost} passages of a clean build missing", command=command)
    if extra:
        sweep.tally.duplicated += extra
        sweep.fail(group, name, "duplicated", f"{extra} passages duplicated or not in a clean build",
                   command=command)
    return not lost and not extra


# -- report ----------------------------------------------------------------------------------------
def report(sweep: Sweep, wall: float, cpu: float) -> None:
    t = sweep.tally
    print("\n== totals ==")
    rows = [("bad inputs tried", t.tried), ("'unexpected' errors (stderr: unexpected / traceback)", t.unexpected),
            ("wrong exit codes", t.wrong_exit), ("other failed checks (unclear error, hang, content)", t.other),
            ("passages lost", t.lost), ("passages duplicated or extra", t.duplicated),
            ("interruptions survived", f"{t.survived} of {t.interruptions}"),
            ("injections obeyed", f"{t.obeyed} of {t.injections}" if t.injections else "not tried")]
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
    parser.add_argument("--skip", default="injection", help="groups to leave out (default: injection)")
    parser.add_argument("--kills", type=int, default=10, help="kill -9 during `index add` (default 10)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--qwen", default="/root/.cache/gguf-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                        help="reader GGUF for the injection group")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every command")
    options = parser.parse_args(argv)
    if not ASSISTANT.exists():
        print(f"error: {ASSISTANT} not found; run scripts/install.sh first", file=sys.stderr)
        return 1
    groups = [g for g in (options.only.split(",") if options.only else GROUPS) if g]
    if not options.only:
        groups = [g for g in groups if g not in options.skip.split(",")]
    unknown = set(groups) - set(GROUPS)
    if unknown:
        parser.error(f"unknown groups: {', '.join(sorted(unknown))}")

    import hostile_cases_cli
    import hostile_cases_index
    import hostile_injection
    import hostile_interrupts

    runners = {**hostile_cases_index.GROUPS, **hostile_cases_cli.GROUPS, **hostile_interrupts.GROUPS,
               **hostile_injection.GROUPS}
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
    sys.path[:0] = [str(Path(__file__).resolve().parent), str(REPO)]
    sys.exit(main())
