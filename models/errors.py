"""Every error that reaches the user, in one family: one clear line (what is wrong, what to do).

The kind of error, not its wording, tells a front end which hint to give (tui/app.py hint_for):
no index, a model missing, a bad setting or strategy option, a bad input file or folder.

    AssistantError
    ├── ConfigError ── OptionError
    ├── ModelError ── OfflineError
    ├── IndexProblem
    │   ├── IndexUnusable ── NoIndex, IndexDamaged
    │   ├── DiskFull, IndexBusy, IndexPathError
    ├── BadInputError ── ThreadDamaged
    ├── Interrupted ── Cancelled
    └── BudgetExceeded

Internal control flow that never reaches a user stays private where it is raised and caught:
models.reader.gguf_header._Truncated (-> ModelError), index_builder.extract.Unreadable (a skipped
file's reason), index_builder.datasets.BadRecord (a skipped record's reason) and
assistant.server.api_errors.ApiError (a refusal the server writes as OpenAI's JSON error object) and
assistant.mcp_server.progress.Deadline (an ask past its time bound, said as the tool's error).
index_builder.store_errors turns LanceDB's own failures into IndexDamaged / DiskFull.
"""
from __future__ import annotations

from pathlib import Path


class AssistantError(Exception):
    """Base for every error the CLI and TUI show as a single line instead of a traceback."""


# -- settings ------------------------------------------------------------------------------
class ConfigError(AssistantError):
    """A setting has a value that cannot be used."""


class OptionError(ConfigError):
    """A strategy spec names an unknown strategy or option, or gives an option a bad value."""


# -- models --------------------------------------------------------------------------------
class ModelError(AssistantError):
    """A model file is missing, unreadable or of the wrong kind."""


class OfflineError(ModelError):
    """The hub cannot be reached (no network, or HF_HUB_OFFLINE=1)."""


# -- the index -----------------------------------------------------------------------------
class IndexProblem(AssistantError):
    """Something is wrong with the index or its folder."""


class IndexUnusable(IndexProblem):
    """The index cannot serve: none, empty, damaged, or built with another embedding model."""


class NoIndex(IndexUnusable):
    """There is no index where one is needed (none yet, an empty one, or none given)."""


class IndexDamaged(IndexUnusable):
    """A table or file of the index is missing or unreadable."""

    def __init__(self, path: Path | str, what: str):
        self.what = what  # the damage alone, for `index repair` to say what it could not mend
        super().__init__(f"the index at {path} is damaged ({what}): run `assistant index repair --index {path}` "
                         f"first; if it cannot mend it, rebuild it with `assistant index add ...` into a new "
                         f"--index, or delete {path}")


class IndexRepairable(IndexDamaged):
    """What is missing can be rebuilt from the tables: the full-text or vector index, or the
    metadata file, lost or unreadable (index_builder/health.py)."""

    def __init__(self, path: Path | str, what: str):
        self.what = what
        IndexUnusable.__init__(self, f"the index at {path} is damaged ({what}): run `assistant index repair "
                                     f"--index {path}` to rebuild it from its tables")


class DiskFull(IndexProblem):
    """The disk filled up while the index was written; what was committed is kept."""

    def __init__(self, path: Path | str):
        super().__init__(f"disk full while writing the index at {path}; free space and run the same command "
                         "again: nothing committed was lost")


class IndexBusy(IndexProblem):
    """Another process is writing the index."""


class IndexPathError(IndexProblem):
    """The index folder cannot be used: a file, or not writable."""


# -- input and runs ------------------------------------------------------------------------
class BadInputError(AssistantError):
    """A file or folder given to the assistant cannot be used: missing, of the wrong kind or
    unreadable."""


class ThreadDamaged(BadInputError):
    """A saved thread's file cannot be read; the other threads are not concerned."""


class Interrupted(AssistantError):
    """The user stopped the question while a model call was running."""


class Cancelled(Interrupted):
    """An index run was stopped (should_stop said so): everything up to the last committed
    batch is kept."""

    def __init__(self, message: str = "indexing cancelled; run the same command again to resume"):
        super().__init__(message)


class BudgetExceeded(AssistantError):
    """The per-question bound on reader calls was reached."""


class BadRequest(AssistantError):
    """A request `assistant serve` refuses: its HTTP status, message and OpenAI error code."""

    def __init__(self, status: int, message: str, code: str = "invalid_request"):
        super().__init__(message)
        self.status, self.message, self.code = status, message, code
