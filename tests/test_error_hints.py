"""The app picks its hint by the error's type, never by the words of the message."""
import pytest

from index_builder.store_errors import IndexDamaged, NoIndex
from models.errors import AssistantError, ConfigError, ModelError, NoIndexError, OptionError
from tui.app import hint_for

F3, F2_MODEL, F2_OPTIONS = "F3 to open the index screen", "F2 to choose another reader", "F2 to pick a strategy"


@pytest.mark.parametrize("error, hint", [
    (NoIndex("no index at /x; build one"), F3),
    (NoIndexError("this strategy needs an index"), F3),
    (IndexDamaged("/x", "its passages table is missing"), F3),
    (ModelError("reader model not found: /m.gguf (no index involved)"), F2_MODEL),  # words do not decide
    (OptionError("strategy 'ra-isf': option depth takes a whole number from 0 to 6, not 'x'"), F2_OPTIONS),
    (ConfigError("k = 0 is out of range (1-50)"), ""),
    (AssistantError("a model, a strategy and no index: only words"), ""),
])
def test_hint_by_type(error, hint):
    assert (hint in hint_for(error)) if hint else hint_for(error) == ""
