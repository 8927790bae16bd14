"""The answer checks' tuned values (assistant/tuning.py): where a page's opening is read for a date
(dated_choice.py) or a nationality (nationality.py), and what the yes/no check records (yes_no.py;
the reader's lean to yes is measured per reader in models/downloads/catalog.toml). The checks were
designed on held-out training questions: EVALUATION.md, "The checks of the question's shape"."""
from __future__ import annotations

from dataclasses import dataclass

from ..tuning import SettingsGroup, setting


@dataclass(frozen=True)
class DatedChoiceSettings(SettingsGroup):
    """A pick between two options decided by their pages' dates (dated_choice.py)."""

    opening_chars: int = setting(250, bound=(20, 5000), why=(
        "a page's opening, where it gives the date of its subject ('Emma Bull (born December 13, 1954)')"))
    title_in_chars: int = setting(80, bound=(10, 1000), why=(
        "a passage opens its page when a word of the title stands in its first this many characters"))
    verb_stem_letters: int = setting(5, bound=(1, 20), why=(
        "a verb longer than this is looked for on the page by this many first letters, any ending after "
        "('relea' for 'released')"))
    after_verb_chars: int = setting(40, bound=(5, 500), why=(
        "a date this close after the question's verb on the page is its date ('formed in 2008')"))


@dataclass(frozen=True)
class NationalitySettings(SettingsGroup):
    """A yes/no about two things' nationality decided by their pages' openings (nationality.py)."""

    opening_chars: int = setting(250, bound=(20, 5000), why=(
        "a page's opening, where it states its subject's nationality"))
    question_tail_words: int = setting(4, bound=(1, 20), why=(
        "the question's last words in which its one nationality is looked for ('Are both A and B American?')"))


@dataclass(frozen=True)
class YesNoSettings(SettingsGroup):
    """A bare yes/no weighed against the reader's lean to yes (yes_no.py)."""

    log_odds_digits: int = setting(3, bound=(1, 17), why="digits the log-odds of yes over no keep in the step's event")


DATED_CHOICE = DatedChoiceSettings()
NATIONALITY = NationalitySettings()
YES_NO = YesNoSettings()
