"""The app picks its hint by the error's type, never by the words of the message."""
import pytest

from models.errors import (AssistantError, Cancelled, ConfigError, DiskFull, IndexBusy, IndexDamaged, IndexUnusable,
                           ModelError, NoIndex, OfflineError, OptionError)
from tui.app import hint_for

F3, F2_MODEL, F2_OPTIONS = "F3 to open the index screen", "F2 to choose another reader", "F2 to pick a strategy"


@pytest.mark.parametrize("error, hint", [
    (NoIndex("no index at /x; build one"), F3),
    (NoIndex("this strategy needs an index"), F3),
    (IndexUnusable("index /x was built with embedding model a, not b"), F3),
    (OfflineError("offline (HF_HUB_OFFLINE is set)"), F2_MODEL),
    (DiskFull("/x"), ""),  # adding a folder would not help
    (IndexBusy("the index at /x is being written by pid 1"), ""),
    (Cancelled(), ""),
    (IndexDamaged("/x", "its passages table is missing"), F3),
    (ModelError("reader model not found: /m.gguf (no index involved)"), F2_MODEL),  # words do not decide
    (OptionError("strategy 'ra-isf': option depth takes a whole number from 0 to 6, not 'x'"), F2_OPTIONS),
    (ConfigError("k = 0 is out of range (1-50)"), ""),
    (AssistantError("a model, a strategy and no index: only words"), ""),
])
def test_hint_by_type(error, hint):
    assert (hint in hint_for(error)) if hint else hint_for(error) == ""


def test_user_facing_errors_are_declared_only_in_models_errors():
    """One error family: a class deriving from an exception anywhere else is one of the few
    private control-flow exceptions that never reach a user (models/errors.py names them)."""
    import ast
    import builtins
    from pathlib import Path

    import models.errors

    root = Path(__file__).resolve().parents[2]
    family = {name for name, value in vars(models.errors).items() if isinstance(value, type)
              and issubclass(value, Exception)}
    builtin_errors = {name for name, value in vars(builtins).items() if isinstance(value, type)
                      and issubclass(value, BaseException)}
    private = {"_Truncated", "Unreadable", "BadRecord", "ApiError", "Deadline"}  # caught where they are raised
    found = []
    for package in ("models", "index_builder", "assistant", "research", "tui"):
        for path in sorted((root / package).rglob("*.py")):
            if path == root / "models" / "errors.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and node.name not in private:
                    bases = {getattr(base, "id", getattr(base, "attr", "")) for base in node.bases}
                    if bases & (family | builtin_errors):
                        found.append(f"{path.relative_to(root)}: {node.name}")
    assert found == []
    assert not family & builtin_errors  # no builtin name shadowed
