"""Names from the file system made safe to store and print.

A Linux file name is bytes: Python hands undecodable bytes over as lone surrogates
(surrogateescape), which Arrow, JSON and UTF-8 cannot hold, and a name may contain a newline or
other control characters that would split or garble a summary line. `safe_name` turns such a
name into one printable line of valid UTF-8, escaping only what needs it (`bad\\xffname.txt`),
so ordinary names are stored and shown exactly as they are. The index stores files under this
form; a CLI printing a path or source name should show it through `safe_name` too.
"""
from __future__ import annotations

import re

# Lone surrogates (undecodable bytes), C0/C1 control characters, line and paragraph separators,
# and the bidirectional overrides that can make a printed name read as another one.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    ch = match.group()
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as surrogateescape carries it
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def safe_name(name: str) -> str:
    """`name` as one printable line of valid UTF-8; unchanged when it already is one."""
    return _UNSAFE.sub(_escape, name) if _UNSAFE.search(name) else name


def valid_text(text: str) -> str:
    """`text` with lone surrogates (which UTF-8 cannot encode) replaced by U+FFFD.

    Document text can carry them from JSON escapes like "\\ud800"; Arrow refuses to store them."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
