"""The many-folders benchmark's collections (issue 62): six folders of real documents, each of
another kind, each with the source of every file and how the file is made from it.

Nothing here was written in the project: man pages, GNU info manuals, Node.js's API reference and
Python's release notes as Debian installs them. Never a package's README, AUTHORS, NEWS or
copyright file, a Python package's METADATA or LICENSE, nor SQLite's or git's documentation
(reserved by the data rules). None of the manuals the personal-documents set (lab/personal_docs/)
was built or tuned on; the report collections (nodejs-reference, config-formats) are documents that
no earlier evaluation in the project read.

The split is fixed by collection: "choose" collections are for choosing designs and thresholds,
"report" collections only for the reported run (lab/many_folders/README.md).
"""
from __future__ import annotations

from dataclasses import dataclass

NODE_API = "/usr/share/doc/nodejs/api"
INFO = "/usr/share/info"
WHATSNEW = "/usr/share/doc/python3.11/html/_sources/whatsnew"

# the Debian package behind each kind of source, and a file that shows it is installed
PACKAGES = {"nodejs-doc": f"{NODE_API}/path.json.gz", "python3.11-doc": f"{WHATSNEW}/3.11.rst.txt",
            "wget": f"{INFO}/wget.info.gz", "ed": f"{INFO}/ed.info.gz", "time": f"{INFO}/time.info.gz",
            "groff": "/usr/bin/gropdf", "man-db": "/usr/bin/man", "bsdextrautils": "/usr/bin/col",
            "shared-mime-info": "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
            "libtasn1-doc": "/usr/share/doc/libtasn1-doc/libtasn1.pdf"}


@dataclass(frozen=True)
class Item:
    dest: str  # path inside the collection's folder
    how: str  # man_txt | man_docx | man_odt | man_pdf | copy | info_md | note_txt
    source: str  # a man page name, a file path, or "FILE#chapter" / "FILE#section"


@dataclass(frozen=True)
class Collection:
    name: str
    split: str  # choose | report
    kind: str  # what kind of documents, in words
    items: tuple[Item, ...]


def _man(how: str, folder: str, pages: str, suffix: str) -> list[Item]:
    return [Item(f"{folder}{page}.{suffix}", how, page) for page in pages.split()]


COMMAND_PAGES = ("xxd file ps lsof zstd readelf od numfmt shred dd flock getopt lsblk taskset ionice truncate fmt "
                 "fold csplit b2sum")
ADMIN_DOCX = "adduser deluser groupadd useradd usermod blkid findmnt hwclock"
ADMIN_ODT = "apt-get apt-cache dumpe2fs e2label fstrim filefrag tune2fs losetup wipefs ldconfig"
CONFIG_PAGES = ("fstab ssh_config login.defs limits.conf resolv.conf nsswitch.conf adduser.conf deluser.conf "
                "e2fsck.conf mke2fs.conf journald.conf logind.conf timesyncd.conf sources.list apt_preferences "
                "dpkg.cfg os-release hosts")
NODE_MODULES = ("path os url querystring dns events timers readline string_decoder util zlib child_process "
                "cluster dgram net tty v8 vm assert punycode console worker_threads")
INFO_MANUALS = ("wget", "ed", "time")
RELEASE_NOTES = ("3.10", "3.11")


def _node() -> list[Item]:
    return [Item(f"api/{module}.html", "copy", f"{NODE_API}/{module}.html") for module in NODE_MODULES.split()]


def _real_pdfs() -> list[Item]:
    return [Item("specs/shared-mime-info-spec.pdf", "copy", PACKAGES["shared-mime-info"]),
            Item("specs/libtasn1.pdf", "copy", PACKAGES["libtasn1-doc"])]


COLLECTIONS: dict[str, Collection] = {c.name: c for c in (
    Collection("command-manuals", "choose", "manual pages of commands, as plain text",
               tuple(_man("man_txt", "", COMMAND_PAGES, "txt"))),
    Collection("admin-documents", "choose", "system administration manuals kept as Word and OpenDocument files",
               tuple(_man("man_docx", "word/", ADMIN_DOCX, "docx") + _man("man_odt", "odt/", ADMIN_ODT, "odt"))),
    # the chapters are found when the collection is made (info_chapters): one Markdown file each
    Collection("gnu-guides", "choose", "GNU manuals (info) as Markdown chapters",
               tuple(Item(f"{manual}/", "info_md", f"{INFO}/{manual}.info.gz") for manual in INFO_MANUALS)),
    # one short text note per subsection of a release's "What's New" (notes-like text)
    Collection("release-notes", "choose", "Python release notes kept as short text notes",
               tuple(Item(f"python-{version}/", "note_txt", f"{WHATSNEW}/{version}.rst.txt")
                     for version in RELEASE_NOTES)),
    Collection("nodejs-reference", "report", "a library's HTML API reference (Node.js)", tuple(_node())),
    Collection("config-formats", "report", "a handbook of configuration file formats and two specifications, in PDF",
               tuple(_man("man_pdf", "formats/", CONFIG_PAGES, "pdf") + _real_pdfs())),
)}
SPLITS = ("choose", "report")


def of_split(split: str) -> list[Collection]:
    """The collections of a split ("all" for every one), in the order above."""
    return [c for c in COLLECTIONS.values() if split in ("all", c.split)]
