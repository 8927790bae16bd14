"""Sweep group `threads` (issue 54): conversation threads under hostile use. Two writers at once
(`ask --thread` twice, `chat` beside `ask`) must keep every turn; a damaged thread file beside
good ones must be listed as damaged while the others list and open, and opening it must keep its
intact turns (one turn a line; issue 65) or be one `error:` line (an old-style file); a huge
thread (new and old style) must list, open and take a turn without being read whole (the peak
memory of opening it is compared with a small thread's)."""
from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

from world import Result, Sweep

from assistant.conversation.threads import ThreadStore, Turn

GROUP = "threads"
PAIRS = 5  # tries of two `ask --thread` at once
CHAT_BESIDE_ASK = 3
HUGE_MB = 120
MEMORY_MARGIN_MB = 150  # opening a huge thread may cost this much more than a small one, no more


def store(sweep: Sweep) -> ThreadStore:
    return ThreadStore(sweep.root / "data")


def threads_dir(sweep: Sweep) -> Path:
    folder = sweep.root / "data" / "threads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def questions_of(sweep: Sweep, name: str) -> list[str]:
    return [t.question for t in store(sweep).load(name, whole=True).turns]


def run_with_input(sweep: Sweep, args: tuple, text: str, timeout: float = 180) -> tuple[Result, int]:
    """The CLI with `text` on its stdin; (result, peak resident memory in MB, polled from /proc)."""
    started = time.monotonic()
    proc = subprocess.Popen(sweep._argv(args, False), env=sweep._env(None, False), cwd=sweep.root,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = [0]

    def watch():
        while proc.poll() is None:
            try:
                for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        peak[0] = max(peak[0], int(line.split()[1]) // 1024)
            except (OSError, ValueError):
                pass
            time.sleep(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        out, err = proc.communicate(text.encode(), timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        timed_out = True
    watcher.join(1)
    return Result(list(args), proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                  time.monotonic() - started, timed_out), peak[0]


def kept_every_turn(sweep: Sweep, name: str, label: str, asked: list[str], results: list[Result]) -> None:
    sweep.tally.tried += 1
    sweep.tally.per_group[GROUP] += 1
    for result in results:
        sweep.judge(GROUP, f"{label}: each command", result, "ok", count=False)
    try:
        saved = questions_of(sweep, name)
    except Exception as exc:  # noqa: BLE001  (said as a failure)
        sweep.fail(GROUP, label, "check", f"the thread cannot be read back: {exc}")
        return
    missing = [q for q in asked if q not in saved]
    if missing or len(saved) != len(asked):
        sweep.fail(GROUP, label, "check", f"turns kept {len(saved)} of {len(asked)}; missing {missing}")


def concurrent_writers(sweep: Sweep) -> None:
    for n in range(PAIRS):
        name, asked = f"pair{n}", [f"Who leads project Heron, try {n}?", f"Where do otters sleep, try {n}?"]
        started = time.monotonic()
        procs = [sweep.popen("ask", q, "-s", "direct", "--thread", name) for q in asked]
        results = [sweep.finish(p, ["ask", q, "-s", "direct", "--thread", name], started) for p, q in zip(procs, asked)]
        kept_every_turn(sweep, name, f"two `ask --thread` at once, try {n}", asked, results)
    for n in range(CHAT_BESIDE_ASK):
        name = f"beside{n}"
        chat_question, ask_question = f"What do otters eat, chat {n}?", f"Who leads Heron, ask {n}?"
        box: dict = {}
        chat = threading.Thread(target=lambda: box.update(chat=run_with_input(
            sweep, ("chat", name, "-s", "direct"), f"{chat_question}\n/quit\n")[0]))
        chat.start()
        asked = sweep.run("ask", ask_question, "-s", "direct", "--thread", name, timeout=180)
        chat.join(200)
        kept_every_turn(sweep, name, f"`chat` beside `ask`, try {n}", [chat_question, ask_question],
                        [box["chat"], asked])


DAMAGES = {
    "not-json.json": b"{ this is not json",
    "cut-short.json": b'{"name": "cut-short", "turns": [{"question": "a", "answer": "b"}, {"question": "c"',
    "empty.json": b"",
    "list-not-object.json": b"[1, 2, 3]",
    "turns-not-list.json": b'{"name": "x", "turns": 7}',
    "latin1.json": '{"name": "x", "turns": [{"question": "café", "answer": "é"}]}'.encode("latin-1"),
    "binary.jsonl": bytes(range(256)) * 64,
    "bad-middle.jsonl": b'{"question": "a", "answer": "b"}\nnot json\n{"question": "c", "answer": "d"}\n',
    "wrong-types.jsonl": b'{"question": 7, "answer": ["b"]}\n',
    "unknown-field.jsonl": b'{"question": "a", "answer": "b", "mood": "odd"}\n',
    "nul-bytes.jsonl": b"\x00" * 4096 + b"\n",
    "citations-not-list.jsonl": b'{"question": "a", "answer": "b", "citations": "x"}\n',
}


NO_DAMAGE = {"unknown-field.jsonl"}


def damaged_files(sweep: Sweep) -> None:
    folder = threads_dir(sweep)
    good = {"good-one": 2, "good-two": 3}
    for name, turns in good.items():
        for i in range(turns):
            store(sweep).append(name, Turn(f"{name} question {i}", f"answer {i}"))
    for file, data in DAMAGES.items():
        (folder / file).write_bytes(data)
        name = file.split(".")[0]

        def listed(result: Result, name=name):
            lines = result.out.splitlines()
            problems = [f"good thread {g} not listed with {n} turns" for g, n in good.items()
                        if f"{g}  ({n} turns)" not in lines]
            line = next((line for line in lines if line.startswith(name + "  ")), "")
            if file in NO_DAMAGE:  # a field a newer version added (issue 65)
                if line != f"{name}  (1 turns)":
                    problems.append(f"{file} is not listed as one intact turn: {line!r}")
            elif "damaged" not in line:
                problems.append(f"the damaged {file} is not named as damaged: {line!r}")
            return problems

        sweep.case(GROUP, f"`chat --list` beside damaged {file}", "chat", "--list", check=listed)
        # one turn a line: the intact turns are kept, the damaged lines set aside (issue 65)
        lines = file.endswith(".jsonl")
        sweep.case(GROUP, f"export damaged {file}", "chat", name, "--export", "-", expect="ok" if lines else "error")
        sweep.case(GROUP, f"ask in damaged {file}", "ask", "Who is it?", "-s", "direct", "--thread", name,
                   expect="ok" if lines else "error")
        sweep.case(GROUP, f"open damaged {file}", "chat", name, expect="ok" if lines else "error")
        sweep.case(GROUP, f"good thread opens beside damaged {file}", "chat", "good-two", "--export", "-",
                   check=lambda r: None if "## 3. good-two question 2" in r.out else "good-two not exported whole")
        sweep.case(GROUP, f"delete damaged {file}", "chat", name, "--delete",
                   check=lambda r, name=name: None if not any(folder.glob(f"{name}.json*")) else "file left")
        if lines:  # a new thread of that name starts clean
            sweep.case(GROUP, f"list after deleting {file}", "chat", "--list",
                       check=lambda r, name=name: None if not any(line.startswith(name + "  ")
                                                                  for line in r.out.splitlines()) else "still listed")
    (folder / "a-folder.json").mkdir()
    sweep.case(GROUP, "a folder named like a thread", "chat", "--list",
               check=lambda r: "a-folder" in r.out and "a-folder in the list" or None)
    for bad in ("../up", "a/b", "-x", "x" * 65, "", "név"):
        sweep.case(GROUP, f"bad thread name {bad!r}", "ask", "Who?", "-s", "direct", "--thread", bad, expect="error")


def _write_huge(path: Path, old_style: bool) -> int:
    """About HUGE_MB of turns; returns how many."""
    answer = "The heron project is led by Dana Smith and ships in spring. " * 30
    turns = HUGE_MB * 1024 * 1024 // (len(answer) + 120)
    with open(path, "w", encoding="utf-8") as fh:
        if old_style:
            fh.write('{"name": "%s", "turns": [\n' % path.stem)
        for i in range(turns):
            record = json.dumps({"question": f"question {i}?", "answer": answer, "standalone": "",
                                 "citations": [{"label": "notes.md", "title": "Notes"}], "strategy": "direct",
                                 "asked_at": 0.0})
            fh.write(record + (",\n" if old_style and i < turns - 1 else "\n"))
        if old_style:
            fh.write("]}\n")
    return turns


def huge_threads(sweep: Sweep) -> None:
    folder = threads_dir(sweep)
    store(sweep).append("small", Turn("a small one?", "yes"))
    _small, small_peak = run_with_input(sweep, ("chat", "small"), "/quit\n")
    for name, old_style in (("huge-new", False), ("huge-old", True)):
        path = folder / (f"{name}.json" if old_style else f"{name}.jsonl")
        turns = _write_huge(path, old_style)
        size_mb = path.stat().st_size / 2 ** 20
        sweep.case(GROUP, f"list beside {name} ({size_mb:.0f} MB)", "chat", "--list", timeout=300,
                   check=lambda r, name=name, turns=turns: None if f"{name}  ({turns} turns)" in r.out
                   else f"{name} not listed with {turns} turns: {r.out[-300:]}")
        opened, peak = run_with_input(sweep, ("chat", name), "/quit\n", timeout=300)
        grew = peak - small_peak
        sweep.judge(GROUP, f"open {name} ({size_mb:.0f} MB)", opened, "ok",
                    check=lambda r, grew=grew: None if grew < MEMORY_MARGIN_MB else
                    f"opening it took {grew} MB more than a small thread (read whole?)")
        sweep.note(f"opening {name} ({size_mb:.0f} MB, {turns} turns): peak {peak} MB resident, "
                   f"a one-turn thread {small_peak} MB")
        question = f"One more about {name}?"
        sweep.case(GROUP, f"ask in {name}", "ask", question, "-s", "direct", "--thread", name, timeout=300,
                   check=lambda r, name=name, turns=turns: _last_turn(sweep, name, question, turns))
    giant = folder / "giant-turn.jsonl"
    giant.write_text(json.dumps({"question": "big?", "answer": "word " * (10 * 2 ** 20)}) + "\n")
    sweep.case(GROUP, "ask after one 50 MB turn", "ask", "And then?", "-s", "direct", "--thread", "giant-turn",
               timeout=300)


def _last_turn(sweep: Sweep, name: str, question: str, before: int):
    folder = threads_dir(sweep)
    if (folder / f"{name}.json").exists():
        return "the old-style file was not converted on the new turn"
    recent = store(sweep).load(name)
    if not recent.turns or recent.turns[-1].question != question:
        return "the new turn is not the thread's last"
    if store(sweep).summary(name).turns != before + 1:
        return f"turns after the ask: {store(sweep).summary(name).turns}, expected {before + 1}"
    current = folder / f"{name}.jsonl"
    if current.stat().st_size > 16 * 2 ** 20:
        return f"the current file is still {current.stat().st_size // 2 ** 20} MB (not rotated)"
    return None


def threads(sweep: Sweep) -> None:
    concurrent_writers(sweep)
    damaged_files(sweep)
    huge_threads(sweep)


GROUPS = {"threads": threads}
