"""An answer written from what the index knows of its files, with its citations and label decided
as it was written (folder/answers.py); the runner uses them as they are."""
from __future__ import annotations

from ..grounding.citations import LabelledResult

SUPPORTED = "supported"  # the label grounding/verdict.py gives an answer its cited passages hold

FolderResult = LabelledResult
