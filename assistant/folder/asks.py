"""Recognising a question about the folder itself, by patterns (no model): which of my files
mention X, how many files mention X, how many PDFs do I have, list my files, summarise FILE;
any of them narrowed to a folder by name ("in my notes folder", "under work/"). A short request
after the question ("What is a.md about? A few lines please.") does not hide it.

Conservative on purpose: a question about the documents' content ("How many files can tar append
at once?", "What document ended the war?") must stay a question for the usual pipeline, so a folder
word (files, documents, PDFs) must stand right beside a verb of mentioning or a phrase about having
or listing them. `folder_question` returns None for anything else.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .settings import FOLDER_SETTINGS

WHICH, COUNT, COUNT_FILES, LIST_FILES, SUMMARY = "which", "count", "count-files", "list-files", "summary"

# a kind of file as people name it -> (its name in answers, its plural, the suffixes it covers)
FILE_KINDS = {
    "pdf": ("PDF", "PDFs", (".pdf",)),
    "word": ("Word document", "Word documents", (".docx", ".doc", ".odt")),
    "text": ("text file", "text files", (".txt", ".text")),
    "markdown": ("Markdown file", "Markdown files", (".md", ".markdown")),
    "html": ("web page", "web pages", (".html", ".htm", ".xhtml")),
    "epub": ("e-book", "e-books", (".epub",)),
}
_KIND_WORDS = [
    (r"pdfs?(?:\s+(?:files?|documents?))?", "pdf"),
    (r"(?:word|docx|odt)\s+(?:files?|documents?|docs)|docx(?:es)?", "word"),
    (r"(?:plain\s+)?(?:text|txt)\s+files?", "text"),
    (r"(?:markdown|md)\s+(?:files?|documents?|notes)", "markdown"),
    (r"(?:html|web)\s+(?:files?|pages?)", "html"),
    (r"epubs?|e-?books?", "epub"),
]
_KIND = "|".join(f"(?:{pattern})" for pattern, _ in _KIND_WORDS)
_GENERAL = r"files|documents|docs|manuals|readmes"
_NOUN = rf"(?:{_GENERAL}|notes|{_KIND})"  # notes only with "my" (checked below)
_WHOSE = r"(?:(?:of\s+)?(?:my|the|our)\s+(?:own\s+)?(?:indexed\s+)?)?"
_NAMED = r"(?:[\w.-]+\s+)?"  # a folder's own name before the word folder: "my notes folder"
_PLACE_WORDS = r"(?:folder|directory|subfolder|index|collection|computer|drive)"
_PLACE = (rf"(?:\s+(?:in|from|on|under|inside)\s+(?:(?:my|the|this)\s+{_NAMED}{_PLACE_WORDS}|[\w.-]+/))?")
_MENTION = (r"(?:mentions?|mentioned|mentioning|talks?\s+about|talking\s+about|contains?|containing|covers?|"
            r"covering|refers?\s+to|referring\s+to|discuss(?:es)?|discussing|deals?\s+with|are\s+about|is\s+about|"
            r"says?\s+(?:anything|something)\s+about|includes?|including|(?:that|which)\s+(?:mentions?|contains?|"
            r"talks?\s+about|covers?|refers?\s+to|discuss(?:es)?|are\s+about|is\s+about|includes?))")
_FOLDER = rf"(?:(?:my|the|this)\s+{_NAMED}(?:folder|directory|subfolder|index|collection)|[\w.-]+/)"
_HAVING = (rf"(?:are\s+there|do\s+(?:i|we|you)\s+have|have\s+(?:i|we|you)\s+(?:got|indexed|added|saved)|"
           rf"are\s+(?:indexed|in\s+{_FOLDER})|(?:does|is)\s+(?:in\s+)?{_FOLDER}\s+(?:have|hold|contain|has)?)")
_LIST = r"(?:please\s+)?(?:list|show(?:\s+me)?|find|name|give\s+me)\s+(?:all\s+)?(?:of\s+)?"
_PATTERNS = [
    # which of my files mention X; what documents talk about X; which file mentions X
    (WHICH, rf"(?:which|what)\s+(?:one\s+)?{_WHOSE}(?P<noun>{_NOUN}|file|document){_PLACE}\s+{_MENTION}\s+(?P<topic>.+)"),
    # in which of my files is X mentioned
    (WHICH, rf"(?:in\s+)?which\s+{_WHOSE}(?P<noun>{_NOUN}){_PLACE}\s+(?:is|are)\s+(?P<topic>.+?)\s+"
            rf"(?:mentioned|discussed|covered)"),
    # do any of my files mention X
    (WHICH, rf"(?:do|does|did)\s+any\s+(?:of\s+)?{_WHOSE}(?P<noun>{_NOUN}){_PLACE}\s+"
            rf"(?:mention|talk\s+about|contain|cover|refer\s+to|discuss|say\s+anything\s+about)\s+(?P<topic>.+)"),
    # is X mentioned in any of my files; where is X mentioned in my files
    (WHICH, rf"(?:is|are)\s+(?P<topic>.+?)\s+mentioned\s+(?:in|by)\s+(?:any\s+(?:of\s+)?)?my\s+(?P<noun>{_NOUN})"),
    (WHICH, rf"where\s+(?:is|are)\s+(?P<topic>.+?)\s+mentioned\s+in\s+my\s+(?P<noun>{_NOUN})"),
    # are there any files about X
    (WHICH, rf"are\s+there\s+any\s+{_WHOSE}(?P<noun>{_NOUN})\s+(?:{_MENTION}|about)\s+(?P<topic>.+)"),
    # list my files about X; find all files containing X
    (WHICH, rf"{_LIST}{_WHOSE}(?P<noun>{_NOUN})(?:\s+(?:(?:that|which)\s+are\s+)?(?:about|on)|\s+{_MENTION}|\s+with)"
            rf"\s+(?P<topic>.+)"),
    # how many of my files mention X
    (COUNT, rf"how\s+many\s+{_WHOSE}(?P<noun>{_NOUN}){_PLACE}\s+{_MENTION}\s+(?P<topic>.+)"),
    # how many PDFs do I have; how many files are there (and nothing after: "... in the Linux kernel" is content)
    (COUNT_FILES, rf"how\s+many\s+{_WHOSE}(?P<noun>{_NOUN})\s+{_HAVING}(?:\s+(?:in|under|inside)\s+{_FOLDER})?"
                  rf"(?:\s+(?:indexed|in\s+total))?"),
    # how many of my files are PDFs
    (COUNT_FILES, rf"how\s+many\s+of\s+my\s+(?:files|documents)\s+are\s+(?P<noun>{_KIND})"),
    # list my files; show me all my PDFs; what files do I have
    (LIST_FILES, rf"{_LIST}(?:my|the)\s+(?:indexed\s+)?(?P<noun>{_NOUN})"
                 rf"(?:\s+(?:i\s+have|you\s+have|(?:in|under|inside)\s+{_FOLDER}))?"),
    (LIST_FILES, rf"what\s+(?P<noun>{_GENERAL}|{_KIND})\s+(?:do\s+(?:i|you|we)\s+have|have\s+(?:i|you|we)\s+indexed|"
                 rf"are\s+(?:there\s+)?in\s+{_FOLDER})"),
]
_COMPILED = [(kind, re.compile(rf"^{pattern}$", re.I)) for kind, pattern in _PATTERNS]

_SUMMARISE = (r"(?:summari[sz]e|sum\s+up|recap|(?:give|write|make)\s+(?:me\s+)?(?:a|an)\s+(?:short\s+|brief\s+|quick\s+)?"
              r"(?:summary|overview|synopsis)\s+of|(?:a\s+)?(?:short\s+|brief\s+|quick\s+)?summary\s+of|tl;?\s*dr(?:\s+of)?)")
_POLITE = r"(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
_SUMMARY_ANY = re.compile(rf"^{_POLITE}{_SUMMARISE}\s+(?P<target>.+?)(?:\s+(?:for\s+me|please|briefly))?$", re.I)
# "what is X about": only when X is recognisably a file ("what is tar about?" asks about tar)
_SUMMARY_FILE = re.compile(r"^(?:what\s+is|what's|whats)\s+(?:in\s+)?(?P<target>.+?)(?:\s+about)?$"
                           r"|^what\s+does\s+(?P<target2>.+?)\s+(?:say|cover|contain)$", re.I)
_FILE_SUFFIX = re.compile(r"[\w.-]+\.(?:txt|text|md|markdown|rst|html?|xhtml|pdf|docx?|odt|epub|csv|json|log|org)\b", re.I)
DOC_NOUNS = ("file", "document", "doc", "pdf", "manual", "handbook", "guide", "readme", "notes", "report", "paper",
             "letter", "contract", "license", "licence", "changelog", "faq", "memo", "minutes", "slides", "thesis",
             "spec", "specification", "invoice", "policy", "news", "authors", "copying")
_FILE_LIKE = re.compile(rf"^(?:the\s+|my\s+|this\s+)?(?:file|document|pdf)\b|\b(?:{'|'.join(DOC_NOUNS)})s?$", re.I)
_TOPIC_LEAD = re.compile(r"^(?:the\s+(?:word|words|term|phrase|name)|the\s+string|anything\s+(?:about|on))\s+", re.I)
_TOPIC_TAIL = re.compile(r"\s+(?:at\s+all|anywhere|in\s+(?:them|it)|in\s+(?:my|the)\s+(?:folder|index|files|documents))$", re.I)
_QUOTES = "\"'“”‘’«»`"


@dataclass(frozen=True)
class FolderAsk:
    """A question over the folder: what is asked (`kind`), of what."""

    kind: str  # which | count | count-files | list-files | summary
    question: str
    topic: str = ""  # which/count: what the files must mention; summary: the file as named
    file_kind: str = ""  # a FILE_KINDS key, "" for any file
    place: str = ""  # a folder the question narrows it to ("notes" in "in my notes folder"), "" for all


# "in my notes folder", "in the manuals directory", "under work/": the folder's name
_PLACE_NAME = re.compile(r"\b(?:in|from|on|under|inside)\s+(?:(?:my|the|this)\s+(?P<named>[\w.-]+)\s+"
                         r"(?:folder|directory|subfolder)\b|(?P<slash>[\w.-]+)/(?=\s|$))", re.I)


def _place_of(text: str) -> str:
    found = _PLACE_NAME.search(text)
    if not found:
        return ""
    name = found.group("named") or found.group("slash")
    return "" if name.lower() in ("own", "indexed", "whole", "entire") else name


def _kind_of(noun: str) -> str:
    for pattern, kind in _KIND_WORDS:
        if re.fullmatch(pattern, noun, re.I):
            return kind
    return ""


def _topic(text: str) -> str:
    text = _TOPIC_TAIL.sub("", _TOPIC_LEAD.sub("", text.strip())).strip().strip(_QUOTES).strip()
    return text if text and len(text.split()) <= FOLDER_SETTINGS.max_topic_words else ""


def _plain(question: str) -> str:
    return " ".join(question.split()).rstrip("?.! ").strip()


def folder_question(question: str) -> FolderAsk | None:
    """The folder question `question` asks, or None when it is not one. A question followed by
    a short request ("... about? A few lines please.") is judged by its first sentence."""
    text = _plain(question)
    first = re.split(r"(?<=[?!.])\s+", text, maxsplit=1)
    short_request = len(first) == 2 and len(first[1].split()) <= FOLDER_SETTINGS.short_request_words
    candidates = ([_plain(first[0])] if short_request else []) + [text]
    for candidate in candidates:
        ask = _recognised(candidate, question)
        if ask is not None:
            return ask
    return None


def _recognised(text: str, question: str) -> FolderAsk | None:
    for kind, pattern in _COMPILED:
        found = pattern.match(text)
        if not found:
            continue
        names = found.groupdict()
        noun = names.get("noun") or ""
        mine = bool(re.search(r"\bmy\b", text, re.I))
        if noun.lower() == "notes" and not mine:  # "which notes ..." may be music
            return None
        if noun.lower() == "document" and text.lower().startswith("what"):  # "what document ended the war"
            return None
        topic = _topic(names.get("topic") or "") if "topic" in names else ""
        if kind in (WHICH, COUNT) and not topic:
            return None
        return FolderAsk(kind, question, topic, _kind_of(noun), _place_of(text))
    return _summary(text, question)


def _summary(text: str, question: str) -> FolderAsk | None:
    found = _SUMMARY_ANY.match(text)
    target = found.group("target") if found else ""
    if not found:
        found = _SUMMARY_FILE.match(text)
        target = (found.group("target") or found.group("target2") or "") if found else ""
        if not target or not (_FILE_SUFFIX.search(target) or _FILE_LIKE.search(target.strip(_QUOTES))
                              or target[:1] in _QUOTES):
            return None
        if text.lower().startswith(("what is", "what's", "whats")) and not text.lower().endswith(" about") \
                and not re.match(r"^what(?:\s+i|')s\s+in\s", text, re.I):
            return None  # "what is the file system of X" is not a summary
    target = target.strip().strip(_QUOTES).strip()
    named = target and len(target.split()) <= FOLDER_SETTINGS.max_topic_words
    return FolderAsk(SUMMARY, question, target) if named else None
