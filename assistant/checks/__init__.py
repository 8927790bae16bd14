"""Answer checks: after the default pipeline writes an answer, each registered check looks at the
question's shape and may decide the answer again (a yes/no against the reader's lean to yes, a
pick between two options by their pages' dates, a yes/no about nationality by the pages' openings).
`choice_options` finds the two options a question names. The interface: `base.AnswerCheck`."""
from __future__ import annotations

from .base import AnswerCheck
from .dated_choice import DatesDecide
from .nationality import NationalityDecide
from .yes_no import YesNoWeighed

# in the order they run: a yes/no is weighed before the page checks read it
CHECKS: tuple[AnswerCheck, ...] = (YesNoWeighed(), DatesDecide(), NationalityDecide())
