"""The sweep's world, at the bottom of lab/hostile/: a temporary home for the CLI, a runner that
judges each call (Result, Sweep), the tally of outcomes, the index read back as rows, and the
small indexes several groups share. Imports nothing of the sweep's own modules."""
from __future__ import annotations

import collections
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ASSISTANT = [sys.executable, "-m", "assistant"]  # this checkout's code (PYTHONPATH below)
# the CLI's catch-all ("error: unexpected KeyError: ...") or a traceback; not click's own
# "Got unexpected extra argument", which is a usage error
UNEXPECTED = re.compile(r"Traceback|unexpected (?!extra argument)", re.IGNORECASE)
WARNING = re.compile(r"^.*\b\w*Warning: .*$", re.MULTILINE)  # Python's warnings.warn lines
NOBODY = 65534
MAX_ERROR_CHARS = 600  # an error line longer than this buries what to do (paths included)
GROUPS = ["names", "contents", "special", "perms", "config", "options", "questions", "eval", "damaged",
          "concurrency", "nesting", "interrupts", "injection",
          "files", "trial-options", "sigint", "repair", "diskfull", "trial-injection",  # issue 34: trial.py
          "threads", "collections", "serve",  # issue 54: cases_threads.py, cases_collections.py, cases_serve.py
          "damage"]  # issue 65: cases_damage.py


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
    sigint_runs: int = 0  # Ctrl-C runs timed (lab/hostile/trial.py)
    sigint_slow: int = 0  # of those, stopped later than 2 s after the signal
    sigint_max: float = 0.0
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
            ASSISTANT_EMBEDDER_BACKEND="onnx", ASSISTANT_MAX_ANSWER_TOKENS="16", COLUMNS="100",
            PYTHONPATH=str(REPO))
        self.can_drop_root = os.geteuid() == 0 and shutil.which("setpriv") is not None

    # -- running the CLI -------------------------------------------------------------------
    def path(self, *parts: str) -> Path:
        return self.root.joinpath("work", *parts)

    def _argv(self, args, nobody: bool) -> list:
        argv = [*ASSISTANT, *[a if isinstance(a, bytes) else str(a) for a in args]]
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

    def popen(self, *args, env: dict | None = None, nobody: bool = False, stdin: bool = False) -> subprocess.Popen:
        """`stdin`: a pipe the caller writes to (`proc.stdin`), else nothing to read."""
        return subprocess.Popen(self._argv(args, nobody), env=self._env(env, nobody), cwd=self.root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, start_new_session=True)

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


# -- shared material -------------------------------------------------------------------------------
def base_index(sweep: Sweep) -> Path:
    """A small good index (built once): the example docs plus two notes."""
    if getattr(sweep, "_base_index", None):
        return sweep._base_index
    folder = sweep.path("base-docs")
    shutil.copytree(REPO / "examples" / "docs", folder, dirs_exist_ok=True)
    (folder / "heron.txt").write_text("Project Heron is led by Dana Smith. It ships in spring.")
    (folder / "otter.md").write_text("# Otters\n\nOtters eat clams and sleep holding hands.")
    index = sweep.path("base-index")
    result = sweep.run("index", "add", folder, "--index", index, timeout=300)
    if result.rc != 0:
        raise RuntimeError(f"cannot build the base index: {result.last_line()}")
    os.chmod(index, 0o755)
    sweep._base_index = index
    return index


def many_files(sweep: Sweep, count: int = 200) -> tuple[Path, collections.Counter]:
    """A folder of `count` small notes and the rows of its clean build (built once)."""
    if getattr(sweep, "_many", None):
        return sweep._many
    rng = random.Random(sweep.options.seed)
    folder = sweep.path("many")
    folder.mkdir(parents=True, exist_ok=True)
    words = "river stone lantern copper meadow falcon harbor violet engine summit orchard glacier".split()
    for number in range(count):
        paragraphs = ["Note %d about %s. " % (number, rng.choice(words))
                      + " ".join(rng.choice(words) for _ in range(rng.randint(60, 120))) for _ in range(3)]
        (folder / f"sub{number % 7}").mkdir(exist_ok=True)
        (folder / f"sub{number % 7}" / f"note{number:03d}.txt").write_text("\n\n".join(paragraphs))
    clean = sweep.path("many-clean")
    started = time.monotonic()
    result = sweep.run("index", "add", folder, "--index", clean, timeout=600)
    if result.rc != 0:
        raise RuntimeError(f"cannot build the clean index of {folder}: {result.last_line()}")
    sweep.clean_build_seconds = time.monotonic() - started
    sweep._many = (folder, passage_rows(clean))
    return sweep._many
