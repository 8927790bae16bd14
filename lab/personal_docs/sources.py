"""Which file of the personal folder comes from which manual on the machine, and how it is made.

Only manuals: man pages, Python's own documentation (python3.11-doc) and two Debian HTML manuals.
Never a package's README, AUTHORS, NEWS or copyright file, nor a Python package's METADATA or
LICENSE (reserved by the data rules).
"""
from __future__ import annotations

from dataclasses import dataclass

PYDOC = "/usr/share/doc/python3.11/html"
# the Debian packages whose files the folder is made from, and the tools that make it
PACKAGES = {"python3.11-doc": f"{PYDOC}/index.html",
            "ghostscript": "/usr/bin/ps2pdf", "groff-base": "/usr/bin/groff", "man-db": "/usr/bin/man",
            "bsdextrautils": "/usr/bin/col", "base-passwd": "/usr/share/doc/base-passwd/users-and-groups.html",
            "zlib1g-dev": "/usr/share/doc/zlib1g-dev/examples/zlib_how.html"}


# the package that installs each man page the folder uses, for the one-line hint when one is missing
MAN_PACKAGES = {"bc": "bc", "bzip2": "bzip2", "gzip": "gzip", "sed": "sed", "grep": "grep", "tar": "tar",
                "xargs": "findutils", "diff": "diffutils", "patch": "patch", "watch": "procps", "kill": "procps",
                "column": "bsdextrautils", "sqlite3": "sqlite3", "cscope": "cscope", "make": "make",
                "scp": "openssh-client", "unzip": "unzip", "jq": "jq", "openssl": "openssl"}


@dataclass(frozen=True)
class Item:
    dest: str  # path inside the folder
    how: str  # man_txt | man_pdf | man_docx | copy | rst_md | rst_docx
    source: str  # a man page name, or a file path

    def source_label(self) -> str:
        return f"man {self.source}" if self.how.startswith("man") else self.source


def _man(how: str, folder: str, pages: str, suffix: str) -> list[Item]:
    return [Item(f"{folder}/{page}.{suffix}", how, page) for page in pages.split()]


def _py(how: str, folder: str, pages: str, suffix: str) -> list[Item]:
    items = []
    for entry in pages.split():  # "dir/page" or "dir/page=name"
        page, _, name = entry.partition("=")
        name = name or page.split("/")[-1]
        source = f"{PYDOC}/{page}.html" if how == "copy" else f"{PYDOC}/_sources/{page}.rst.txt"
        items.append(Item(f"{folder}/{name}.{suffix}", how, source))
    return items


ITEMS: list[Item] = (
    _man("man_txt", "manuals", "bc bzip2 gzip sed grep tar xargs diff patch watch timeout column sqlite3 cscope", "txt")
    + _man("man_pdf", "manuals/pdf", "make scp unzip jq date du nl split openssl tee", "pdf")
    + _py("copy", "python-docs", "library/json library/zipfile library/secrets library/timeit library/glob "
                                 "library/uuid library/gzip library/tomllib library/zoneinfo tutorial/venv "
                                 "library/webbrowser", "html")
    + [Item("work/reference/users-and-groups.html", "copy", "/usr/share/doc/base-passwd/users-and-groups.html"),
       Item("work/reference/zlib_how.html", "copy", "/usr/share/doc/zlib1g-dev/examples/zlib_how.html")]
    + _py("rst_md", "notes", "howto/sorting howto/ipaddress library/tempfile library/fnmatch library/bisect "
                             "library/textwrap library/graphlib library/fractions faq/installed=python-installed-faq installing/index=installing-modules", "md")
    + _man("man_docx", "work", "ln chmod kill env nohup join uniq shuf", "docx")
    + _py("rst_docx", "work", "library/getpass library/base64", "docx")
)
