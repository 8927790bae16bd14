"""Questions about the folder itself, answered from what the index knows of its files rather
than from the few passages a search returns: "which of my files mention X?" and "how many ...?"
(a full-text search over the whole index, grouped by file), "how many PDFs do I have?" and "list
my files" (the index's document list), "summarise FILE" (the named file read through:
folder/summary.py). The questions are recognised by patterns (folder/asks.py).

How a strategy uses it (the default, when the index holds personal documents):

    ask = folder_question(question)          # None: not a question about the folder
    if ask is not None:
        answer = yield from answer_folder_question(ask, ctx, parent=stage.step)
        if answer is not None:
            return answer                    # as it is: no ReFeed, no answer checks
    ...                                      # None (after a Note saying why): the usual pipeline

The answer's `resolved_by` is "folder". It is a `FolderResult` carrying its own attribution, which
the runner uses as it is: the trained grounding check weighs a short answer to a question, not a
listing of files nor a summary. A listing cites one passage per file named, each holding the
topic ("supported"); a count of files by kind cites nothing (no label); a summary cites, sentence
by sentence, the passages of the file it draws its words from ("supported" when every sentence
has one; folder/summary.py).
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Sequence

from ..context import RunContext
from ..events.core import Note, Passage
from ..events.details import FolderQuestion
from ..grounding.citations import Attribution, text_for_matching
from ..retrieval.index_files import IndexedFile, IndexFiles, file_names, listing
from ..retrieval.settings import INDEX_FILES
from .asks import COUNT, COUNT_FILES, FILE_KINDS, LIST_FILES, SUMMARY, WHICH, FolderAsk, folder_question
from .result import SUPPORTED, FolderResult
from .settings import FOLDER_SETTINGS
from .summary import summarise
from ..answering.generate import StrategyRun
from ..answering.origin import FOLDER

__all__ = ["FOLDER", "FolderAsk", "FolderResult", "answer_folder_question", "folder_question"]

_YES_NO = re.compile(r"^(?:do|does|did|is|are)\b", re.I)


def answer_folder_question(ask: FolderAsk, ctx: RunContext, parent: int | None = None) -> StrategyRun:
    """Answer `ask` from the index's files; None (after a Note) when it cannot, so that the
    caller answers the question as usual."""
    if getattr(ctx.retriever, "store", None) is None:  # a search without an index (a test's)
        yield Note(step=ctx.step(), parent=parent, message="this search cannot list the index's files; "
                                                              "answering from passages as usual")
        return None
    files = IndexFiles(ctx.retriever)
    documents = files.documents()
    if ask.kind == SUMMARY:
        return (yield from summarise(ask, files, documents, ctx, parent))
    if ask.place:
        documents = [d for d in documents if in_place(d, ask.place)]
        if not documents:
            text = f"None of your indexed files is in a folder named “{ask.place}”."
            yield FolderQuestion(step=ctx.step(), parent=parent, asked=ask.kind, files=[], total=0,
                                 summary=f"No folder named “{ask.place}” among the index's files")
            return FolderResult(text=text, resolved_by=FOLDER, attribution=Attribution(marked_text=text))
    if ask.kind in (WHICH, COUNT):
        return (yield from _mentioning(ask, files, documents, ctx, parent))
    return (yield from _by_kind(ask, documents, ctx, parent))


def in_place(document: IndexedFile | Passage, place: str) -> bool:
    """Whether the file lies in a folder named `place`: one of the folders of its path inside the
    indexed folder, or the indexed folder itself."""
    folders = document.path.replace("\\", "/").split("/")[:-1]
    root = PurePosixPath((document.source or "").replace("\\", "/")).name
    return place.lower() in (name.lower() for name in folders + [root])


def _scope(ask: FolderAsk) -> str:
    return f" in {ask.place}/" if ask.place else ""


def _best(passages: list[Passage], phrase: str) -> Passage:
    """The passage to cite for a file: one holding the topic as written, else the best scored."""
    return max(passages, key=lambda p: (_holds(p, phrase), p.score))


def _holds(passage: Passage, phrase: str) -> bool:
    """Whether the passage (its title and text) holds the topic's words as written, in order."""
    return f" {phrase} " in f" {text_for_matching(passage.title + ' ' + passage.text)} "


def _mentioning(ask: FolderAsk, files: IndexFiles, documents: list[IndexedFile], ctx: RunContext,
                parent: int | None) -> StrategyRun:
    hits = files.matches(ask.topic)
    if ask.place:
        hits = [p for p in hits if in_place(p, ask.place)]
    plural = "files"
    if ask.file_kind:  # "which PDFs mention X": those files only
        _, plural, suffixes = FILE_KINDS[ask.file_kind]
        documents = [d for d in documents if d.path.lower().endswith(suffixes)]
        hits = [p for p in hits if p.path.lower().endswith(suffixes)]
    ctx.retrievals += 1
    by_file: dict[tuple[str, str], list[Passage]] = {}
    for p in hits:
        by_file.setdefault((p.source, p.path), []).append(p)
    phrase = text_for_matching(ask.topic)
    best = {key: _best(found, phrase) for key, found in by_file.items()}
    order = sorted(by_file, key=lambda key: (not _holds(best[key], phrase), -len(by_file[key]), key[1]))
    names = file_names([best[key] for key in order] + list(documents))
    found = [names[key] for key in order]
    cited = [best[key] for key in order[:INDEX_FILES.max_listed]]
    total = len(documents)
    named = FOLDER_SETTINGS.named_in_trace
    shown = ", ".join(found[:named]) + (", …" if len(found) > named else "")
    yield FolderQuestion(step=ctx.step(), parent=parent, asked=ask.kind, topic=ask.topic, files=found,
                         total=total, passages=len(hits),
                         summary=f"Searched all {total} of your {plural}{_scope(ask)} for “{ask.topic}”: "
                                 + (f"{len(found)} mention{'s' * (len(found) == 1)} it ({shown})" if found
                                    else "none mentions it"))
    cap = INDEX_FILES.max_matches
    if len(hits) >= cap:
        yield Note(step=ctx.step(), parent=parent, message=f"“{ask.topic}” is in more than {cap:,} passages; "
                                                           f"the files of the first {cap:,} are counted")
    text, marked = (_mention_text(ask, found, total, plural, marks) for marks in (False, True))
    return FolderResult(text=text, citations=cited, resolved_by=FOLDER,
                        attribution=Attribution(cited=cited, marked_text=marked, grounding=SUPPORTED if cited else ""))


def _mention_text(ask: FolderAsk, found: list[str], total: int, plural: str, marks: bool) -> str:
    yes_no = bool(_YES_NO.match(ask.question.strip()))
    files = (f"of your {total} {plural}" if total != 1 else f"of your {plural}") + _scope(ask)
    if not found:
        return ("No: none" if yes_no else "None") + f" {files} mentions “{ask.topic}”."
    verb = "mentions" if len(found) == 1 else "mention"
    return ("Yes: " if yes_no else "") + f"{len(found)} {files} {verb} “{ask.topic}”: {listing(found, marks)}."


def _by_kind(ask: FolderAsk, documents: list[IndexedFile], ctx: RunContext, parent: int | None) -> StrategyRun:
    total = len(documents)
    if ask.file_kind:
        one, many, suffixes = FILE_KINDS[ask.file_kind]
        chosen = [d for d in documents if d.path.lower().endswith(suffixes)]
    else:
        one, many, chosen = "file", "files", list(documents)
    names = file_names(documents)
    found = [names[(d.source, d.path)] for d in chosen]
    yield FolderQuestion(step=ctx.step(), parent=parent, asked=ask.kind, file_kind=ask.file_kind, files=found,
                         total=total, summary=f"Went through the index's list of your {total} files{_scope(ask)}: "
                                              f"{len(found)} {one if len(found) == 1 else many}")
    text = _kind_text(ask, found, total, one, many, documents)
    return FolderResult(text=text, resolved_by=FOLDER, attribution=Attribution(marked_text=text))


def _kind_text(ask: FolderAsk, found: list[str], total: int, one: str, many: str,
               documents: list[IndexedFile]) -> str:
    scope = _scope(ask)
    if not total:
        return "Your index holds no files yet."
    if not ask.file_kind:
        head = f"Your index holds {total} file{'s' if total != 1 else ''}{scope}"
        if ask.kind == LIST_FILES:
            return f"{head}: {listing(found)}."
        return f"{head}{_breakdown(documents)}."
    if not found:
        return f"None of your {total} files{scope} is a {one}."
    if ask.kind == COUNT_FILES and len(found) > INDEX_FILES.max_listed:
        return f"{len(found)} of your {total} files{scope} are {many}."
    what = f"is a {one}" if len(found) == 1 else f"are {many}"
    return f"{len(found)} of your {total} files{scope} {what}: {listing(found)}."


def _breakdown(documents: list[IndexedFile]) -> str:
    """": 40 text files, 10 Markdown files and 2 PDFs" (the kinds FILE_KINDS names; the rest as other)."""
    counts: dict[str, int] = {}
    for d in documents:
        kind = next((k for k, (_, _, suffixes) in FILE_KINDS.items() if d.path.lower().endswith(suffixes)), "")
        counts[kind] = counts.get(kind, 0) + 1
    if len(counts) < 2:
        return ""
    parts = [f"{n} {FILE_KINDS[k][0] if n == 1 else FILE_KINDS[k][1]}" for k, n in
             sorted(counts.items(), key=lambda kv: -kv[1]) if k]
    if counts.get(""):
        parts.append(f"{counts['']} other{'s' if counts[''] != 1 else ''}")
    return ": " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])
