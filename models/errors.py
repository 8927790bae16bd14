"""Errors that reach the user as one clear line (what is wrong, what to do)."""


class AssistantError(Exception):
    """Base for every error the CLI and TUI show as a single line instead of a traceback."""


class ModelError(AssistantError):
    """A model file is missing, unreadable or of the wrong kind."""


class ConfigError(AssistantError):
    """A setting has a value that cannot be used."""


class BudgetExceeded(AssistantError):
    """The per-question bound on reader calls was reached."""


class Interrupted(AssistantError):
    """The user stopped the question while a model call was running."""
