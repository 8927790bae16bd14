"""What a path given to the indexer is (a folder, a Wikipedia dump or a passage file), and the
checks that say a bad one in one line. The indexers call these same checks, and front ends call
them (through index_builder.indexers.check) before any model loads: none repeats them."""
from __future__ import annotations

from pathlib import Path

from models.errors import BadInputError

from .names import safe_name

FOLDER, FILE, WIKIPEDIA, PASSAGES = "folder", "file", "wikipedia", "passages"
PASSAGE_SUFFIXES = (".jsonl", ".json", ".tsv")
DUMP_SUFFIXES = ((".xml",), (".xml", ".bz2"))


def _existing(path: Path, missing: str, folder: bool, wrong_kind: str) -> tuple[Path, str]:
    """(path, its shown name) when it exists and is a folder (or a file); else one line:
    "<missing>: <name>" or "not a folder|file: <name> (<wrong_kind>)"."""
    path = Path(path).expanduser()
    shown = safe_name(str(path))
    if not path.exists():
        raise BadInputError(f"{missing}: {shown}")
    if not (path.is_dir() if folder else path.is_file()):
        raise BadInputError(f"not a {'folder' if folder else 'file'}: {shown} ({wrong_kind})")
    return path, shown


def check_folder(path: Path) -> Path:
    return _existing(path, "no such folder", True, "for a passage file use `assistant index passages`, "
                     "for a Wikipedia dump `assistant index wikipedia`")[0]


def check_document_file(path: Path) -> Path:
    """One document to index on its own (any file but a passage file or a dump, which have
    their own commands)."""
    path, shown = _existing(path, "no such file", False, "give a document file or a folder")
    suffixes = tuple(s.lower() for s in path.suffixes[-2:])
    if suffixes[-1:] and suffixes[-1] in PASSAGE_SUFFIXES:
        raise BadInputError(f"{shown} looks like a passage file: use `assistant index passages`")
    if suffixes[-1:] in DUMP_SUFFIXES or suffixes in DUMP_SUFFIXES:
        raise BadInputError(f"{shown} looks like a Wikipedia dump: use `assistant index wikipedia`")
    return path


def check_folder_or_document(path: Path) -> tuple[str, Path]:
    """(FOLDER or FILE, path): what `assistant index add` takes."""
    path = Path(path).expanduser()
    if path.is_file():
        return FILE, check_document_file(path)
    return FOLDER, _existing(path, "no such folder or file", True, "give a folder or a document file")[0]


def check_passage_file(path: Path) -> Path:
    path, shown = _existing(path, "no such passage file", False, "give a .jsonl or .tsv passage file")
    if "".join(path.suffixes[-1:]).lower() not in PASSAGE_SUFFIXES:
        raise BadInputError(f"{shown}: passage files are .jsonl ({{id, title, text}}) or .tsv (id, text, title)")
    if path.stat().st_size == 0:
        raise BadInputError(f"{shown} is empty: no passages to index")
    return path


def check_dump_file(path: Path) -> Path:
    """An existing file (whether it holds a dump, wikipedia.open_dump says from its first bytes)."""
    return _existing(path, "no such dump file", False, "give a pages-articles .xml or .xml.bz2 dump")[0]


def kind_of(path: Path) -> str:
    """FOLDER, WIKIPEDIA, PASSAGES or FILE (one document), from what the path is and its suffixes."""
    path = Path(path).expanduser()
    if not path.exists():
        raise BadInputError(f"no such folder or file: {safe_name(str(path))}")
    if path.is_dir():
        return FOLDER
    suffixes = tuple(s.lower() for s in path.suffixes[-2:])
    if suffixes[-1:] in DUMP_SUFFIXES or suffixes in DUMP_SUFFIXES:
        return WIKIPEDIA
    if suffixes[-1:] and suffixes[-1] in PASSAGE_SUFFIXES:
        return PASSAGES
    return FILE
