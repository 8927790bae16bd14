"""Plain `--help` that reads well at 80 columns: value names in capitals (TEXT, N, PATH) where
Typer writes `<str>`, `<int range>` or `<bool>`, and arguments as QUESTION, not `{question}`."""
from __future__ import annotations

from typer import core

_NAMES = {"str": "TEXT", "int": "N", "int range": "N", "float": "NUMBER", "float range": "NUMBER",
          "path": "PATH", "file": "FILE", "directory": "FOLDER", "bool": ""}
_typer_display_type = core._TyperParameter.display_type


def _display_type(self, ctx) -> str:
    label = _typer_display_type(self, ctx).strip("<>")
    return _NAMES.get(label, label.upper())


def _argument_usage(self) -> str:
    name = self.display_name_raw.upper()
    name = name if self.required else f"[{name}]"
    return name + ("..." if self.nargs != 1 else "")


def _argument_name(self) -> str:
    return self.display_name_raw.upper() + ("..." if self.metavar is None and self.nargs != 1 else "")


def install() -> None:
    """Once, before any help is printed (cli/main.py)."""
    core._TyperParameter.display_type = _display_type
    core.TyperArgument._usage_display_name = _argument_usage
    core.TyperArgument._rich_display_name = _argument_name
    core.TyperArgument.display_type_rich = lambda self, ctx: None  # the argument's help says what it is
