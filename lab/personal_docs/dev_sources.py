"""The dev folder: a second personal-documents folder, made the same way as the tune/report one
(sources.py) from other manuals on the machine, for checking design choices on fresh questions.

Only manuals: man pages, Python's own documentation (python3.11-doc) and two HTML manuals of other
documentation (valgrind's quick start, libffi's introduction). None of the manuals of sources.ITEMS,
and never a package's README, AUTHORS, NEWS or copyright file, nor a Python package's METADATA or
LICENSE (reserved by the data rules).
"""
from __future__ import annotations

from .sources import PACKAGES, Item, _man, _py

VALGRIND_QUICK_START = "/usr/share/doc/valgrind/html/quick-start.html"
LIBFFI_INTRODUCTION = "/usr/share/doc/libffi8/html/Introduction.html"

# the Debian packages whose files the dev folder is made from, and the tools that make it
DEV_PACKAGES = {**{name: marker for name, marker in PACKAGES.items() if name not in ("base-passwd", "zlib1g-dev")},
                "valgrind": VALGRIND_QUICK_START, "libffi-dev": LIBFFI_INTRODUCTION}

# the package that installs each man page (coreutils when not named)
DEV_MAN_PACKAGES = {"find": "findutils", "xz": "xz-utils", "less": "less", "ssh": "openssh-client", "zip": "zip",
                    "free": "procps", "cmp": "diffutils"}

DEV_ITEMS: list[Item] = (
    _man("man_txt", "manuals", "wc head tail cut sort tr paste seq find xz less", "txt")
    + _man("man_pdf", "manuals/pdf", "ssh zip free df stat mktemp factor cmp", "pdf")
    + _py("copy", "python-docs", "library/csv library/shutil library/hashlib library/random library/heapq "
                                 "library/calendar library/bz2", "html")
    + [Item("work/reference/valgrind-quick-start.html", "copy", VALGRIND_QUICK_START),
       Item("work/reference/libffi-introduction.html", "copy", LIBFFI_INTRODUCTION)]
    + _py("rst_md", "notes", "tutorial/errors=errors-tutorial library/shlex library/filecmp library/colorsys "
                             "library/zipapp library/sched library/atexit", "md")
    + _man("man_docx", "work", "cp mv mkdir touch chown", "docx")
    + _py("rst_docx", "work", "library/netrc library/hmac", "docx")
)
