"""Errors that reach the user as one clear line (what is wrong, what to do).

The kind of error, not its wording, tells a front end which hint to give (tui/app.py hint_for):
no index, a model missing, a bad setting or strategy option, a bad input file or folder.
"""


class AssistantError(Exception):
    """Base for every error the CLI and TUI show as a single line instead of a traceback."""


class ModelError(AssistantError):
    """A model file is missing, unreadable or of the wrong kind."""


class ConfigError(AssistantError):
    """A setting has a value that cannot be used."""


class OptionError(ConfigError):
    """A strategy spec names an unknown strategy or option, or gives an option a bad value."""


class IndexUnusable(AssistantError):
    """The index cannot serve: none, empty, damaged, or built with another embedding model
    (index_builder.store_errors has the kinds the store raises)."""


class NoIndexError(IndexUnusable):
    """There is no index where one is needed (none yet, an empty one, or none given)."""


class BadInputError(AssistantError):
    """A file or folder given to the assistant cannot be used: missing, of the wrong kind or
    unreadable."""


class BudgetExceeded(AssistantError):
    """The per-question bound on reader calls was reached."""


class Interrupted(AssistantError):
    """The user stopped the question while a model call was running."""
