"""Bounds on zip-based formats (DOCX, ODT, EPUB) before any parser unpacks them.

The parsers read whole parts into memory and build XML trees several times their size, so a
zip bomb (a few hundred KB that unpack to hundreds of MB of XML) would run for minutes and take
gigabytes. The zip's directory declares every entry's unpacked size, and Python's zipfile never
unpacks more than declared, so checking the declared sizes bounds what the parsers can get.
"""
from __future__ import annotations

import io
import zipfile

MAX_UNPACKED_BYTES = 256 * 1024 * 1024  # everything in the archive, unpacked
MAX_RATIO = 100  # unpacked / packed; text XML packs 5-20x, a bomb hundreds or thousands of times
RATIO_CHECKED_ABOVE = 16 * 1024 * 1024  # small files may pack as well as they like
MAX_ENTRIES = 20_000


def _mb(size: int) -> str:
    return f"{size / 1024 / 1024:.0f} MB"


def check_zip(data: bytes, kind: str) -> None:
    """Raise Unreadable when the archive would unpack to too much (or is not a zip at all)."""
    from . import Unreadable

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise Unreadable(f"cannot read {kind}: not a valid zip file ({exc})") from None
    if len(entries) > MAX_ENTRIES:
        raise Unreadable(f"{kind} holds {len(entries)} parts (limit {MAX_ENTRIES}): refused as a possible zip bomb")
    unpacked = sum(e.file_size for e in entries)
    packed = max(1, sum(e.compress_size for e in entries))
    if unpacked > MAX_UNPACKED_BYTES:
        raise Unreadable(f"{kind} unpacks to {_mb(unpacked)} (limit {_mb(MAX_UNPACKED_BYTES)}): "
                         "refused as a possible zip bomb")
    if unpacked > RATIO_CHECKED_ABOVE and unpacked / packed > MAX_RATIO:
        raise Unreadable(f"{kind} unpacks {unpacked // packed}:1 to {_mb(unpacked)} (limit {MAX_RATIO}:1): "
                         "refused as a possible zip bomb")
