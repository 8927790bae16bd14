"""The two options a choice question names ("Who was born first, Erika Jayne or Marco Da Silva?"),
and which of them an answer names."""
from __future__ import annotations

import re

from ..answering.answer_norm import squad_normalize

LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)  # "the Battle of Guam" is "Battle of Guam"
# lower-case words inside a name ("Mahbub ul Haq", "Ibn al Arabi", "José Echegaray y Eizaguirre")
_JOINERS = {"of", "the", "and", "de", "in", "on", "for", "a", "an", "to", "von", "van", "der", "la", "le", "&",
            "ul", "al", "el", "bin", "ibn", "da", "di", "du", "del", "des", "dos", "y"}
# a question opening with its verb ("Was A or B born first?"): the verb is no part of A, and what
# follows B is the question's frame, not B's name ("born first", "die first", "released earlier")
_OPENING_VERBS = {"was", "were", "is", "are", "did", "does", "do", "has", "have", "had", "will", "would", "can",
                  "could", "should"}
_OPENERS = _OPENING_VERBS | {"which", "who", "whom", "whose", "what"}
_FRAME_WORDS = (r"born|died|die|dies|came|come|released|formed|founded|published|established|created|opened|"
                r"started|begun|began|first|earlier|later|older|younger|newer|oldest|youngest|earliest|latest")
_FRAME_START = re.compile(rf"\s+(?=(?:was|were|is|are|did|does|has|had|the|{_FRAME_WORDS})\b)")
_FRAME_WORD = re.compile(rf"\b(?:{_FRAME_WORDS})\b")


def options_of(question: str) -> tuple[str, str] | None:
    """The two things a question offers to choose between, as it writes them ("Erika Jayne",
    "Marco Da Silva"); None when it offers no choice of two names."""
    text = question.strip().rstrip("?").strip()
    if text.lower().count(" or ") != 1:
        return None
    head, tail = re.split(r"\s+or\s+", text, maxsplit=1, flags=re.I)
    # the second ends where the question goes on ("Which person, A or B, held more roles?"); a colon
    # inside it is a title's ("A Nightmare on Elm Street 4: The Dream Master")
    second = _name_from_start(re.split(r",\s+(?=[a-z])|[;?]", tail)[0].strip())
    second = _before_frame(second)
    if (head.split() or [""])[0].lower() in _OPENING_VERBS:  # "Is A or B the genus of more species?"
        second = _name_run(second)
    first = _name_at_end(head)
    if not first or not second or squad_normalize(first) == squad_normalize(second):
        return None
    return first, second


def picked(answer: str, options: tuple[str, str]) -> int | None:
    """Which option (0 or 1) the answer names, by its normalised words; None for neither or both."""
    said = squad_normalize(answer)
    if not said:
        return None
    hits = [i for i, option in enumerate(options)
            if (o := squad_normalize(option)) and (said == o or f" {said} " in f" {o} " or f" {o} " in f" {said} ")]
    return hits[0] if len(hits) == 1 else None


def _capitalised(word: str) -> bool:
    """A word opening with a capital of any script or a figure ("Łódź", "1917"), after any quote."""
    first = next((ch for ch in word if ch.isalnum()), "")
    return first.isupper() or first.isdigit()


def _name_from_start(text: str) -> str:
    """The name opening `text`, after any lower-case words ("the birth of Robert Young")."""
    words = text.split()
    while words and not _capitalised(words[0]):
        words.pop(0)
    return " ".join(words).strip("\"'“”")


def _before_frame(text: str) -> str:
    """`text` up to the question's frame after a name ("Alyaksey Vasilewski" of "Alyaksey Vasilewski
    born first", "McFarland, USA" of "McFarland, USA was released first"): lower-case words leading to
    a date or order word; others stay ("Love is a Battlefield", "The Secret of the Storm Country")."""
    for cut in _FRAME_START.finditer(text):
        lower = []  # the lower-case words from here on, up to the next capitalised one
        for word in text[cut.end():].split():
            if _capitalised(word):
                break
            lower.append(word)
        if _FRAME_WORD.search(" ".join(lower)):
            return text[:cut.start()].strip()
    return text


def _capitalised_run(words: list[str]) -> list[str]:
    """The capitalised words opening `words`, with the joiners between them ("Mahbub ul Haq")."""
    run: list[str] = []
    for word in words:
        if not (_capitalised(word) or (run and word.lower() in _JOINERS)):
            break
        run.append(word)
    return run


def _name_run(text: str) -> str:
    """The run of capitalised words and joiners opening `text` ("Brabejum" of "Brabejum the genus of
    more species"), less joiners at its end."""
    run = _capitalised_run(text.split())
    while run and run[-1].lower() in _JOINERS:
        run.pop()
    return " ".join(run).strip("\"'“”")


def _name_at_end(text: str) -> str:
    """The name closing `text`: after its last comma (or colon) when what follows is a name ("Who
    was born first, Erika Jayne"), else its closing run of capitalised words and joiners ("Which
    band was formed first The Exies")."""
    parts = re.split(r"[,;]\s|--", text)
    if len(parts) == 1:  # "the pen name Walter Ericson: Laura Esquivel"; after a comma a colon is a title's
        parts = re.split(r":\s", text)
    if len(parts) > 1:
        after = LEADING_ARTICLE.sub("", parts[-1].strip())
        if after and _capitalised(after):
            return after.strip("\"'“”")
    run = _capitalised_run(text.split()[::-1])[::-1]  # read from the end
    if len(run) == len(text.split()) and run and run[0].lower() in _OPENERS:
        run.pop(0)  # the question's opening word: "Was Jamie Curry or ...", "Which of Dinosaur or ..."
    while run and run[0] in _JOINERS:  # "the" (not "The": "The Exies")
        run.pop(0)
    return " ".join(run).strip("\"'“”")
