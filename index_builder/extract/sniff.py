"""What a file's bytes are, whatever its name says: binary formats by their signature, and
decoded text that is mostly control characters (binary data that happens to decode)."""
from __future__ import annotations

import re

# Leading bytes of common binary formats: a photo or archive renamed .txt or .html is no text.
SIGNATURES = (
    (b"%PDF-", "PDF"), (b"PK\x03\x04", "ZIP archive"), (b"\x89PNG", "PNG image"), (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"), (b"GIF89a", "GIF image"), (b"\x7fELF", "program"), (b"GGUF", "model"),
    (b"\x1f\x8b", "gzip archive"), (b"7z\xbc\xaf\x27\x1c", "7z archive"), (b"\xfd7zXZ\x00", "xz archive"),
    (b"Rar!\x1a", "RAR archive"), (b"\xd0\xcf\x11\xe0", "old Office document"),
    (b"SQLite format 3\x00", "SQLite database"), (b"OggS\x00", "Ogg audio"), (b"fLaC\x00", "FLAC audio"),
)
_SAMPLE_CHARS = 64 * 1024
MAX_CONTROL_SHARE = 0.05  # logs with a few colour codes pass; binary data has ~12% below 0x20
# Unicode category Cc (C0 and C1 controls) less tab, newline, vertical tab, form feed and return,
# plus U+FFFD; one regex pass is much faster than a category look-up per character, which, run on
# every file, was a large part of the indexer's own time before embedding.
_BAD_CHARS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\ufffd]")


def binary_kind(data: bytes) -> str:
    """The binary format `data` starts with, or ""."""
    return next((kind for magic, kind in SIGNATURES if data.startswith(magic)), "")


# Terminal colour and cursor codes (ESC [ ... letter) are formatting a log or a captured terminal
# keeps, not binary data: they do not count against a text.
_ANSI_CSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def control_share(text: str) -> float:
    """The share of characters that no text holds: C0/C1 controls (tabs, newlines and terminal
    colour codes aside) and U+FFFD, the mark of bytes that did not decode."""
    sample = _ANSI_CSI.sub("", text[:_SAMPLE_CHARS])
    if not sample:
        return 0.0
    bad = len(_BAD_CHARS.findall(sample))
    if bad < 2:  # one stray control (a bell in a short note) is no sign of binary data
        return 0.0
    return bad / len(sample)


def check_text(text: str) -> str:
    """The text, or Unreadable when it is binary data in disguise."""
    from . import Unreadable

    if control_share(text) > MAX_CONTROL_SHARE:
        raise Unreadable("binary file (mostly control characters)")
    return text
