"""What an interrupted run must be given again to resume as it was asked: recorded with its
source when the run begins (`resume` in the index metadata, dropped once the run completes),
read back for the hint `index status` prints."""
from __future__ import annotations

from .collections import DEFAULT, collections_of
from .walk import DEFAULT_MAX_SIZE


def resume_options(collection: str, max_size: int) -> dict:
    """A folder's or file's run: its collection, and its size limit when not the default."""
    options: dict = {"collection": collection}
    if max_size != DEFAULT_MAX_SIZE:
        options["max_size"] = int(max_size)
    return options


def resume_arguments(recorded) -> list[str]:
    """The command-line options that resume the run a source's metadata records. An index from
    before `resume` was recorded: a source in one named collection resumes into it."""
    info = recorded if isinstance(recorded, dict) else dict(recorded or {})
    options = info.get("resume")
    if not isinstance(options, dict):
        names = collections_of(info) if info.get("collections") else [DEFAULT]
        options = {"collection": names[0]} if len(names) == 1 else {}
    args = []
    collection = options.get("collection")
    if isinstance(collection, str) and collection != DEFAULT:
        args += ["--collection", collection]
    max_size = options.get("max_size")
    if isinstance(max_size, int) and max_size > 0:
        args += ["--max-size", f"{max_size / (1024 * 1024):g}"]
    limit = options.get("limit")
    if isinstance(limit, int) and limit > 0:
        args += ["--limit", str(limit)]
    return args
