"""Rebuild the personal-documents folder of issue 51 from manuals on this machine.

    PYTHONPATH=. .venv/bin/python -m lab.personal_docs.build_folder DEST [--install] [--write-manifest]
        [--set tune-report|dev]

57 files in five formats (txt, md, html, pdf, docx) under manuals/, python-docs/, notes/ and work/,
made from man pages, Python's documentation and two Debian HTML manuals (sources.py says which
file comes from which). A missing Debian package is said in one line (`--install` runs apt-get).
Each file's extracted text is compared with lab/personal_docs/manifest.json: drift is said in one
line (the questions on a drifted file are flagged by lab/personal_eval.py). `--write-manifest`
records this build as the reference; `--check-index` then indexes the folder with the product into a
temporary data dir (several minutes on two cores) and says any file it skipped.

`--set dev` builds the dev folder instead (dev_sources.py: 42 files from other manuals, the same
formats and layout), with its own manifest, lab/personal_docs/dev_manifest.json.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from . import convert
from .dev_sources import DEV_ITEMS, DEV_MAN_PACKAGES, DEV_PACKAGES
from .manifest import DEV_MANIFEST, MANIFEST, drift_line, drifted, read_manifest, text_sha256, write_manifest
from .sources import ITEMS, MAN_PACKAGES, PACKAGES, Item

# each folder: its items, the packages of its man pages, the packages it needs, its manifest
SETS = {"tune-report": (ITEMS, MAN_PACKAGES, PACKAGES, MANIFEST),
        "dev": (DEV_ITEMS, DEV_MAN_PACKAGES, DEV_PACKAGES, DEV_MANIFEST)}


def missing_packages(name: str = "tune-report") -> list[str]:
    """Debian packages whose files or man pages the folder needs and this machine lacks."""
    items, man_packages, packages, _ = SETS[name]
    missing = [package for package, marker in packages.items() if not Path(marker).exists()]
    for item in items:
        if item.how.startswith("man") and subprocess.run(["man", "-w", item.source], capture_output=True,
                                                         check=False).returncode != 0:
            missing.append(man_packages.get(item.source, "coreutils"))
    return sorted(set(missing))


def ensure_packages(install: bool, name: str = "tune-report") -> None:
    missing = missing_packages(name)
    if missing and install:
        subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], check=False)
        missing = missing_packages(name)
    if missing:
        sys.exit(f"missing Debian packages: apt-get install {' '.join(missing)} (or run with --install)")


def make(item: Item, dest: Path) -> None:
    """Write one file of the folder from its source."""
    title = Path(item.dest).stem
    if item.how == "man_txt":
        convert.write(dest, convert.man_text(item.source))
    elif item.how == "man_pdf":
        convert.write(dest, convert.man_pdf(item.source))
    elif item.how == "man_docx":
        text = convert.man_text(item.source)
        convert.write(dest, convert.docx_bytes(f"{title} manual", convert.man_blocks(text)))
    elif item.how == "copy":
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item.source, dest)
    elif item.how == "rst_md":
        convert.write(dest, convert.rst_markdown(Path(item.source).read_text(encoding="utf-8")))
    elif item.how == "rst_docx":
        markdown = convert.rst_markdown(Path(item.source).read_text(encoding="utf-8"))
        convert.write(dest, convert.docx_bytes(f"{title} module", convert.markdown_blocks(markdown)))
    else:
        raise ValueError(f"unknown conversion {item.how}")


def build(folder: Path, items: list[Item] = ITEMS) -> list[dict]:
    """Write every file (the folder emptied first); the manifest rows of what was written."""
    if folder.exists():
        shutil.rmtree(folder)
    rows = []
    for item in items:
        make(item, folder / item.dest)
        rows.append({"file": item.dest, "source": item.source_label(), "how": item.how,
                     "sha256": text_sha256(folder / item.dest)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--install", action="store_true", help="apt-get install missing packages")
    parser.add_argument("--write-manifest", action="store_true", help="record this build as the reference")
    parser.add_argument("--check-index", action="store_true", help="index it into a temporary data dir")
    parser.add_argument("--set", choices=tuple(SETS), default="tune-report",
                        help="which folder: the tune/report one (default) or the dev one")
    args = parser.parse_args(argv)
    if args.dest.resolve() in (Path.cwd().resolve(), Path.home().resolve(), Path("/")):
        sys.exit(f"{args.dest} would be emptied first; name a new folder")
    ensure_packages(args.install, args.set)
    items, _, _, manifest = SETS[args.set]
    rows = build(args.dest, items)
    if args.write_manifest:
        write_manifest(rows, manifest)
        print(f"{len(rows)} files in {args.dest}; manifest written to {manifest}")
    else:
        line = drift_line(drifted(args.dest, read_manifest(manifest)), manifest)
        print(f"{len(rows)} files in {args.dest}" + (f"; {line}" if line else "; identical to the manifest"))
    if args.check_index:
        from .index_check import index_check

        summary, skipped = index_check(args.dest)
        print(f"index check: {summary}" + "".join(f"\n  skipped {line}" for line in skipped))
        return 1 if skipped else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
