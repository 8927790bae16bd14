"""Make the many-folders benchmark's collections from manuals on this machine (issue 62).

    PYTHONPATH=. .venv/bin/python -m lab.many_folders.materialise DEST [--collections all|choose|report|NAME,...]
        [--install] [--write-manifest]

Each collection (collections.py) goes to DEST/NAME/, emptied first. A missing Debian package is
said in one line (`--install` runs apt-get). Each file's extracted text is compared with
lab/many_folders/manifest.json: drift is said in one line (lab/folders_eval.py flags the
questions of a drifted file). `--write-manifest` records this build as the reference.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from lab.personal_docs import convert
from lab.personal_docs.manifest import drift_line, drifted, read_manifest, text_sha256, write_manifest

from . import formats
from .collections import COLLECTIONS, PACKAGES, Collection, Item, of_split

MANIFEST = Path(__file__).with_name("manifest.json")
MAN_PACKAGES = {"zstd": "zstd", "lsof": "lsof", "readelf": "binutils", "xxd": "xxd", "file": "file",
                "ps": "procps", "apt-get": "apt", "apt-cache": "apt", "ssh_config": "openssh-client",
                "journald.conf": "systemd", "logind.conf": "systemd", "timesyncd.conf": "systemd-timesyncd",
                "e2fsck.conf": "e2fsprogs", "mke2fs.conf": "e2fsprogs", "dumpe2fs": "e2fsprogs",
                "e2label": "e2fsprogs", "tune2fs": "e2fsprogs", "filefrag": "e2fsprogs",
                "adduser": "adduser", "deluser": "adduser", "adduser.conf": "adduser", "deluser.conf": "adduser"}


def chosen(names: str) -> list[Collection]:
    """The collections named ("all", "choose", "report", or names separated by commas)."""
    if names in ("all", "choose", "report"):
        return of_split(names)
    unknown = [n for n in names.split(",") if n not in COLLECTIONS]
    if unknown:
        sys.exit(f"error: no collection {', '.join(unknown)}; choose from {', '.join(COLLECTIONS)}")
    return [COLLECTIONS[n] for n in names.split(",")]


def missing_packages(collections: list[Collection]) -> list[str]:
    missing = [package for package, marker in PACKAGES.items() if not Path(marker).exists()]
    for collection in collections:
        for item in collection.items:
            if item.how.startswith("man") and subprocess.run(["man", "-w", item.source], capture_output=True,
                                                             check=False).returncode != 0:
                missing.append(MAN_PACKAGES.get(item.source, "coreutils"))
    return sorted(set(missing))


def ensure_packages(collections: list[Collection], install: bool) -> None:
    missing = missing_packages(collections)
    if missing and install:
        subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], check=False)
        missing = missing_packages(collections)
    if missing:
        sys.exit(f"error: missing Debian packages: apt-get install {' '.join(missing)} (or run with --install)")


def files_of(item: Item) -> list[tuple[str, bytes | str]]:
    """(path in the collection, content) of each file one item makes."""
    title = Path(item.dest).stem
    if item.how == "man_txt":
        return [(item.dest, convert.man_text(item.source))]
    if item.how == "man_pdf":
        return [(item.dest, formats.man_pdf(item.source))]
    if item.how == "man_docx":
        return [(item.dest, convert.docx_bytes(f"{title} manual", convert.man_blocks(convert.man_text(item.source))))]
    if item.how == "man_odt":
        return [(item.dest, formats.odt_bytes(f"{title} manual", convert.man_blocks(convert.man_text(item.source))))]
    if item.how == "copy":
        return [(item.dest, Path(item.source).read_bytes())]
    if item.how == "info_md":
        return [(item.dest + name, text) for name, text in formats.info_chapters(Path(item.source))]
    if item.how == "note_txt":
        return [(item.dest + name, text) for name, text in formats.release_notes(Path(item.source))]
    raise ValueError(f"unknown conversion {item.how}")


def build(collection: Collection, dest: Path) -> list[dict]:
    """Write the collection under dest/NAME (emptied first); the manifest rows of what was written."""
    folder = dest / collection.name
    if folder.exists():
        shutil.rmtree(folder)
    rows = []
    for item in collection.items:
        for relative, content in files_of(item):
            convert.write(folder / relative, content)
            rows.append({"file": f"{collection.name}/{relative}", "source": item.source, "how": item.how,
                         "sha256": text_sha256(folder / relative)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--collections", default="all", help="all, choose, report, or names with commas")
    parser.add_argument("--install", action="store_true", help="apt-get install missing packages")
    parser.add_argument("--write-manifest", action="store_true", help="record this build as the reference")
    args = parser.parse_args(argv)
    if args.dest.resolve() in (Path.cwd().resolve(), Path.home().resolve(), Path("/")):
        sys.exit(f"error: {args.dest} holds the collections' folders; name another folder")
    collections = chosen(args.collections)
    ensure_packages(collections, args.install)
    rows = []
    for collection in collections:
        made = build(collection, args.dest)
        print(f"{collection.name} ({collection.split}): {len(made)} files in {args.dest / collection.name}", flush=True)
        rows += made
    if args.write_manifest:
        kept = {name: row for name, row in read_manifest(MANIFEST).items()
                if name.split("/")[0] not in {c.name for c in collections}}
        write_manifest(list(kept.values()) + rows, MANIFEST)
        print(f"manifest written to {MANIFEST}")
        return 0
    wanted = {name: row for name, row in read_manifest(MANIFEST).items()
              if name.split("/")[0] in {c.name for c in collections}}
    if not wanted:
        print(f"no manifest rows for these collections in {MANIFEST}; --write-manifest records this build")
        return 0
    line = drift_line(drifted(args.dest, wanted), MANIFEST)
    print(line or "identical to the manifest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
