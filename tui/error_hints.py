"""What the user can do about an error, said in the app's own keys (F2, F3)."""
from __future__ import annotations

from models.errors import IndexUnusable, ModelError, OptionError


def hint_for(exc: Exception) -> str:
    """What the user can do about an error, in this app's keys: chosen by the error's type."""
    if isinstance(exc, IndexUnusable):  # none, empty, damaged, or built with another embedder
        return "Press F3 to open the index screen and add a folder of documents."
    if isinstance(exc, ModelError):
        return "Press F2 to choose another reader (a .gguf file) or judge."
    if isinstance(exc, OptionError):
        return "Press F2 to pick a strategy and its options."
    return ""
