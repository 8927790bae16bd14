"""Facts read from the documents' own structure, for the many-folders questions (no model):
a man page's or info manual's definition lists (an option, setting or environment variable -> the
first sentence of its description, and a default its description states), Node.js's API
reference (each method's first sentence, the version that added it, its parameters' defaults,
from the JSON the reference is built from), and Python's release notes (each PEP's title, who
contributed each change)."""
from __future__ import annotations

import gzip
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

LOOKUP, VALUE = "lookup", "value"


@dataclass(frozen=True)
class Fact:
    file: str  # path inside the collection's folder
    subject: str  # what the file documents: "xxd", "ssh_config", "the path module", "Python 3.11"
    thing: str  # what the term is: option, setting, environment variable, method, PEP, change
    kind: str  # lookup: the question gives `text` and asks for the term; value: it asks for `value`
    term: tuple[str, ...]  # the term's aliases (the answer of a lookup)
    text: str  # lookup: the description; value: what is asked of the term ("default", "added")
    value: tuple[str, ...] = ()  # a value fact's answer aliases


_ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "cf", "approx", "resp", "incl", "no")
_SKIPPED_SECTIONS = ("NAME", "SYNOPSIS", "SEE ALSO", "AUTHOR", "AUTHORS", "COPYRIGHT", "REPORTING BUGS", "BUGS",
                     "HISTORY", "FILES", "EXIT STATUS", "EXAMPLES", "EXAMPLE", "NOTES", "COLOPHON")
_OPTION = re.compile(r"^--?[A-Za-z0-9?#]")
_KEYWORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)=?(?:\s*\([a-z ,]+\))?$")
_DEFAULT = re.compile(r"\b[Dd]efaults? (?:value )?(?:is|to|of|=|:)\s+(?:set to )?[\"'‘“]?([\w./:+~-]*\w)")


def first_sentence(paragraph: str, most_words: int = 24) -> str:
    """The paragraph's first sentence (abbreviations kept whole), '' when it is too long or short."""
    text = " ".join(paragraph.replace("\u2010 ", "").split())  # a word groff broke at a line's end
    text = re.sub(r"\s*\(\*note [^)]*::\)", "", text)  # an info manual's cross-reference
    for found in re.finditer(r"[.;](?=\s|$)", text):
        before = text[: found.start()].split()[-1:] or [""]
        lone = found.start() == 0 or text[found.start() - 1] == " "  # "the . (period) character"
        if lone or before[0].lower().rstrip(".") in _ABBREVIATIONS or re.search(r"\.\w$", before[0]):
            continue
        text = text[: found.start()]
        break
    words = text.split()
    return text.strip() if 4 <= len(words) <= most_words else ""


def option_aliases(term: str) -> tuple[str, ...]:
    """'-t, --tries=NUMBER' -> ('-t', '--tries'): each option as written, without its argument."""
    aliases = []
    for part in re.split(r",\s*|\s+\|\s+|\s+or\s+", term):
        found = re.match(r"^(--?[A-Za-z0-9?#][\w-]*)", part.strip())
        if found and found.group(1) not in aliases:
            aliases.append(found.group(1))
    return tuple(aliases)


def default_value(description: str) -> str:
    """A default the description states ("The default is 4096" -> "4096"), '' when none is a
    value worth asking (a number, a path or a name, not 'yes' or 'to')."""
    found = _DEFAULT.search(" ".join(description.split()))
    if not found:
        return ""
    value = found.group(1)
    return value if re.search(r"[\d/._]|^[A-Z]{2,}$", value) and len(value) <= 30 else ""


def _term_fact(file: str, subject: str, section: str, term: str, paragraph: str, keywords: bool) -> list[Fact]:
    if _OPTION.match(term):
        aliases, thing = option_aliases(term), "option"
    else:
        keyword = _KEYWORD.match(term)
        if not keyword:
            return []
        if "ENVIRONMENT" in section and keyword.group(1).isupper():
            thing = "environment variable"
        elif keywords and re.search(r"[A-Z].*[A-Z]|_|\d|=$", term.split("(")[0].strip()):  # not an English word
            thing = "setting"
        else:
            return []
        aliases = (keyword.group(1),)
    if not aliases:
        return []
    facts = []
    sentence = first_sentence(paragraph)
    if re.match(r"^(or|and|but|which|that|is|are|these|manual|can take a boolean)\b", sentence, re.I):
        sentence = ""  # a sentence's tail, or words every boolean setting shares
    if sentence and not any(a.lower() in sentence.lower() for a in aliases):
        facts.append(Fact(file, subject, thing, LOOKUP, aliases, sentence))
    value = default_value(paragraph)
    if value and not any(value.lower() == a.lower() for a in aliases):
        facts.append(Fact(file, subject, thing, VALUE, aliases, "default", (value,)))
    return facts


def man_facts(file: str, subject: str, text: str, keywords: bool = False) -> list[Fact]:
    """The definition lists of a man page as `man` prints it: a term at one indent, its
    description deeper (on the next line, or after two spaces on the same one). Options always;
    bare names as settings when `keywords` (a file format's page); environment variables."""
    lines = text.splitlines()
    section, facts = "", []
    for i, line in enumerate(lines):
        if line.strip() and not line.startswith(" "):
            section = line.strip().upper()
            continue
        if not line.strip() or any(section.startswith(s) for s in _SKIPPED_SECTIONS):
            continue
        indent = len(line) - len(line.lstrip())
        same_line = re.match(r"^(\s+)(\S(?:.*?\S)?)\s{2,}(\S.*)$", line)
        nxt = next((n for n in lines[i + 1:i + 3] if n.strip()), "")
        nxt_indent = len(nxt) - len(nxt.lstrip())
        if same_line and _looks_like_term(same_line.group(2)):
            term, column = same_line.group(2), len(line) - len(same_line.group(3))
            body = [same_line.group(3)] + _paragraph(lines, i + 1, column)
        elif nxt_indent > indent and _looks_like_term(line.strip()) and i + 1 < len(lines) and lines[i + 1].strip():
            term, body = line.strip(), _paragraph(lines, i + 1, nxt_indent)
        else:
            continue
        previous = lines[i - 1] if i else ""
        if previous.strip() and previous.startswith(" ") and not (_OPTION.match(term) and _OPTION.match(previous.strip())):
            continue  # inside a paragraph, not at the head of a list entry (options may follow each other)
        facts += _term_fact(file, subject, section, term, " ".join(body), keywords)
    return facts


def _looks_like_term(text: str) -> bool:
    return bool(_OPTION.match(text) or _KEYWORD.match(text)) and len(text) <= 60


def _paragraph(lines: list[str], start: int, indent: int) -> list[str]:
    out = []
    for line in lines[start:]:
        if not line.strip() or len(line) - len(line.lstrip()) < indent:
            break
        out.append(line.strip())
    return out


def info_facts(file: str, subject: str, markdown: str) -> list[Fact]:
    """Options of an info manual's tables, as formats.info_markdown writes them: the term lines
    (`-t NUMBER`, `--tries=NUMBER`) and the paragraph after them."""
    facts, terms, lines = [], [], markdown.splitlines()
    for i, line in enumerate(lines):
        found = re.fullmatch(r"`(-[^`]+)`", line.strip())
        if found:
            terms.append(found.group(1))
            continue
        if terms and line.strip():
            body = _paragraph(lines, i, 0)
            while body and re.fullmatch(r"`[^`]+`", body[0]):  # the same entry's startup-file form
                body = body[1:]
            facts += _term_fact(file, subject, "OPTIONS", ", ".join(terms), " ".join(body), False)
        terms = [] if line.strip() or not terms else terms
    return facts


def _plain(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


def node_facts(file: str, module: str, json_path: Path) -> list[Fact]:
    """A Node.js module's methods, properties and classes: the version that added each (one
    version only), the first sentence that says what it does, and each parameter's default."""
    data = json.loads(gzip.decompress(json_path.read_bytes()))
    subject, facts = module, []  # "Which path method ...?"

    def walk(entry: dict):
        for key in ("modules", "methods", "properties", "classes", "events", "classMethods"):
            for child in entry.get(key, []):
                facts.extend(_node_entry(file, subject, module, child))
                walk(child)

    for top in data.get("modules", []):
        walk(top)
    return facts


def _node_entry(file: str, subject: str, module: str, entry: dict) -> list[Fact]:
    kind = entry.get("type", "")
    name = entry.get("textRaw", "").strip("`")
    if kind not in ("method", "property", "class") or not name or " " in name.split("(")[0]:
        return []
    display = name.split("(")[0] + ("()" if kind == "method" else "")
    bare = display.rstrip("()")
    aliases = tuple(dict.fromkeys([bare, bare.split(".")[-1]]))
    facts = []
    added = (entry.get("meta") or {}).get("added") or []
    if len(added) == 1:
        facts.append(Fact(file, subject, kind, VALUE, (display,), "added", (added[0], added[0].lstrip("v"))))
    sentence = first_sentence(_plain(entry.get("desc", "")))
    lead = re.match(rf"^The {re.escape(display)} (method|property|function|class) (.+)$", sentence)
    if lead and bare.split(".")[-1] not in lead.group(2) and not re.match(r"(is|are)\b", lead.group(2)):
        facts.append(Fact(file, subject, lead.group(1), LOOKUP, aliases, lead.group(2)))
    for signature in entry.get("signatures", [])[:1]:
        for param in _params(signature.get("params", [])):
            default = re.search(r"\*\*Default:\*\*\s*`([^`]+)`", param.get("textRaw", ""))
            value = default.group(1) if default else ""
            if value and value not in ("true", "false", "null", "undefined") and (re.search(r"\d", value) or len(value) > 3):
                facts.append(Fact(file, subject, f"{param['name']} parameter", VALUE, (display,), "default",
                                  (value.strip("'\""),)))
    return facts


def _params(params: list[dict]) -> list[dict]:
    out = []
    for param in params:
        if param.get("name"):
            out.append(param)
        out += _params(param.get("options", []))
    return out


_CONTRIBUTED = re.compile(r"\(Contributed by ([^()]+?)(?: in [^()]*)?\.\)")


def note_facts(file: str, version: str, text: str) -> list[Fact]:
    """A release note: its PEP (the heading 'PEP N: title') and who contributed each change."""
    subject, facts = f"Python {version}", []
    heading = text.splitlines()[0].split(": ", 1)[-1] if text else ""
    pep = re.search(r"PEP (\d+): (.+)$", heading)
    if pep:
        title = pep.group(2).strip()
        facts.append(Fact(file, subject, "PEP", LOOKUP, (f"PEP {pep.group(1)}", pep.group(1)), title))
        facts.append(Fact(file, subject, "PEP", VALUE, (f"PEP {pep.group(1)}",), "release", (version,)))
    module = heading.split(" / ")[-1] if heading.startswith("Improved Modules / ") else ""
    for paragraph in re.split(r"\n\s*\n|\n(?=\* )", text):
        who = _CONTRIBUTED.search(paragraph)
        if not who or not module:
            continue
        names = [n.strip() for n in re.split(r",\s*(?:and\s+)?|\s+and\s+", who.group(1)) if n.strip()]
        sentence = first_sentence(paragraph.lstrip("* ").split("(Contributed")[0], most_words=28)
        if sentence and names and all(len(n.split()) <= 4 for n in names):
            facts.append(Fact(file, subject, f"{module} change", LOOKUP, tuple(names), sentence))
    return facts
