"""Pulling a catalog reader for a front end that must be able to cancel it (the app's settings):
the catalog readers not installed yet, and `models pull`'s own download run in a child process
that reports its progress as JSON lines and that a cancel ends (the partial file stays, so the
next pull resumes). A thread inside this process could not be stopped mid-request.

Run as `python -m assistant.services.pull ENTRY_JSON DATA_DIR [--offline]` by `pull` only."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from dataclasses import asdict, fields
from pathlib import Path
from typing import Callable

from models.config import Settings
from models.errors import AssistantError, Cancelled, ModelError

# (what, done, total): what is "download FILE" or "check FILE"; total 0 while unknown
PullProgress = Callable[[str, int, int], None]
CANCELLED = "the download was cancelled; what was downloaded is kept, and pulling again resumes it"


def user_offline() -> bool:
    """HF_HUB_OFFLINE as the user set it (the CLI sets it for every other library, after noting it)."""
    value = os.environ.get("ASSISTANT_USER_HF_HUB_OFFLINE", os.environ.get("HF_HUB_OFFLINE", ""))
    return value.strip().upper() in {"1", "ON", "YES", "TRUE"}


def pullable_readers(settings: Settings) -> list:
    """The catalog's readers not installed here, in the order that suits this machine, each with
    its placement note (catalog_fit.Placed)."""
    from models.downloads.catalog import load_catalog
    from models.downloads.catalog_fit import ordered_for
    from models.downloads.catalog_match import installed_entry
    from models.machine import this_machine

    catalog = [e for e in load_catalog() if e.is_reader]
    return [placed for placed in ordered_for(this_machine(), catalog)
            if installed_entry(settings.data_dir, placed.entry) is None]


def pull(settings: Settings, entry, on_progress: PullProgress | None = None,
         should_stop: Callable[[], bool] | None = None):
    """Download and verify a catalog entry as `assistant models pull NAME` does; returns the
    Installed record. Cancelled when should_stop() turns true; errors are the same one-line
    AssistantErrors the command gives."""
    from models.downloads.installed import Installed

    command = [sys.executable, "-m", "assistant.services.pull", json.dumps(asdict(entry)), str(settings.data_dir)]
    if user_offline():
        command.append("--offline")
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, start_new_session=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in child.stdout] + [lines.put(None)],
                     daemon=True).start()
    try:
        while True:
            if should_stop is not None and should_stop():
                raise Cancelled(CANCELLED)
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if line is None:
                raise ModelError(f"the download stopped unexpectedly (exit {child.wait()}); pull again to resume")
            try:
                message = json.loads(line)
            except ValueError:
                continue  # a library's stray print: not ours
            if "progress" in message and on_progress is not None:
                on_progress(*message["progress"])
            elif "installed" in message:
                return Installed(**message["installed"])
            elif "error" in message:
                raise _error(*message["error"])
    finally:
        if child.poll() is None:
            child.terminate()  # a cancel, or an error here: the child must not go on downloading
        child.wait()


def _error(kind: str, text: str) -> AssistantError:
    """The child's error as the same class (OfflineError stays OfflineError), from its name."""
    import models.errors as errors

    error = getattr(errors, kind, None)
    if isinstance(error, type) and issubclass(error, ModelError):
        return error(text)
    return AssistantError(text)


def _child(entry_json: str, data_dir: str, offline: bool) -> None:
    """In the child: the pull, its progress and its end as JSON lines on stdout."""
    from models.downloads.catalog import CatalogEntry
    from models.downloads.pull import PullEvents, pull_entry

    def say(**message) -> None:
        print(json.dumps(message), flush=True)

    data = json.loads(entry_json)
    known = {f.name for f in fields(CatalogEntry)}
    entry = CatalogEntry(**{k: tuple(v) if k == "files" else v for k, v in data.items() if k in known})
    current = {"file": ""}

    def start(remote, already):
        current["file"] = remote.filename
        say(progress=[f"download {remote.filename}", already, remote.size])

    events = PullEvents(start=start,
                        progress=lambda done, total: say(progress=[f"download {current['file']}", done, total]),
                        verify=lambda done, total: say(progress=[f"check {current['file']}", done, total]))
    try:
        say(installed=asdict(pull_entry(entry, Path(data_dir), offline=offline, events=events)))
    except AssistantError as exc:
        say(error=[type(exc).__name__, str(exc)])
    except Exception as exc:  # never a traceback on the app's screen
        say(error=["ModelError", f"the download failed: {type(exc).__name__}: {exc}"])


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2], "--offline" in sys.argv[3:])
