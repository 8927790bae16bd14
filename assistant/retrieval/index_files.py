"""What the index knows of its files, for questions about the folder itself
(assistant/folder/answers.py): the list of documents, every passage that holds all
the words of a topic (a full-text AND query over the whole index, not a top-k search), and one
document's passages in reading order.

It reads the store behind a `HybridRetriever`, with that retriever's filter (a collection's
sources; passages of a document an interrupted run left unfinished stay out). Importing it loads
nothing of the store: a strategy may import it without slowing every question's start."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable, Iterable, Sequence

from typing import TYPE_CHECKING

from ..events.core import Passage
from .settings import INDEX_FILES

if TYPE_CHECKING:  # the store's modules load pyarrow and Lance: imported when a file is asked about
    from .retriever import HybridRetriever



@dataclass(frozen=True)
class IndexedFile:
    doc_id: str
    source: str
    path: str  # inside its indexed folder
    title: str
    passages: int


class IndexFiles:
    """The files behind one retriever's search (its collection)."""

    def __init__(self, retriever: HybridRetriever):
        self.store = retriever.store
        self.where = retriever.where
        # passages the retriever keeps out of every search (eval --drop-support installs one that
        # hides a question's own support: research/evaluation/support.py); none by default
        self.hides = getattr(retriever, "hides", None)

    def _reachable(self, passages: list[Passage]) -> list[Passage]:
        return passages if self.hides is None else [p for p in passages if not self.hides(p)]

    def _within(self, clause: str | None = None) -> str | None:
        parts = [c for c in (self.where, clause) if c]
        return " AND ".join(f"({c})" for c in parts) or None

    def documents(self) -> list[IndexedFile]:
        """Every document indexed (in this collection), by path."""
        table = self.store.documents
        with self.store.errors():
            rows = table.count_rows()
            if not rows:
                return []
            query = table.search().select(["doc_id", "source", "path", "title", "passages"]).limit(rows)
            if self.where:
                query = query.where(self.where)
            found = query.to_list()
        return sorted((IndexedFile(r["doc_id"], r["source"] or "", r["path"] or "", r["title"] or "",
                                   int(r["passages"] or 0)) for r in found), key=lambda f: (f.path, f.source))

    def matches(self, topic: str, limit: int = INDEX_FILES.max_matches) -> list[Passage]:
        """Every passage whose text, title or section holds all the topic's words (as the full-text
        index stems them), best scored first; at most `limit`. A topic the full-text index cannot
        search ("here about": stop words only) is looked for as written, case aside."""
        from lancedb.query import FullTextOperator, MatchQuery

        from .retriever import _COLUMNS, HybridRetriever, fts_query

        words = fts_query(topic)
        table = self.store.passages
        rows = []
        if words:
            query = table.search(MatchQuery(words, "search_text", operator=FullTextOperator.AND), query_type="fts")
            if self.where:
                query = query.where(self.where, prefilter=True)
            with self.store.errors():
                rows = query.limit(limit).select(_COLUMNS + ["_score"]).to_list()
        if not rows and topic.strip():
            rows = self._containing(topic.strip(), limit)
        return self._reachable([HybridRetriever._passage(r, r.get("_score") or 0.0) for r in rows])

    def _containing(self, phrase: str, limit: int) -> list[dict]:
        """The passages holding `phrase` as written (case aside): a scan, for what full text misses."""
        from index_builder.store_tables import quote

        from .retriever import _COLUMNS

        needle = "%" + re.sub(r"([%_\\])", r"\\\1", " ".join(phrase.lower().split())) + "%"
        clause = self._within(f"lower(search_text) LIKE {quote([needle])} ESCAPE '\\'")
        with self.store.errors():
            return self.store.passages.search().where(clause).select(_COLUMNS).limit(limit).to_list()

    def passages_of(self, doc_id: str) -> list[Passage]:
        """All the document's passages, in reading order."""
        from index_builder.store_tables import quote

        from .retriever import _COLUMNS, HybridRetriever
        table = self.store.passages
        clause = self._within(f"doc_id = {quote([doc_id])}")
        with self.store.errors():
            rows = table.count_rows(clause)
            found = table.search().where(clause).select(_COLUMNS + ["ordinal"]).limit(max(1, rows)).to_list()
        return self._reachable([HybridRetriever._passage(r, 0.0) for r in sorted(found, key=lambda r: r["ordinal"] or 0)])


def file_names(documents: Sequence[IndexedFile | Passage]) -> dict[tuple[str, str], str]:
    """(source, path) -> the name shown: the path inside its folder, with the folder's name
    where two indexed folders hold the same path."""
    sources_of: dict[str, set[str]] = {}
    for d in documents:
        sources_of.setdefault(d.path, set()).add(d.source)
    return {(d.source, d.path): (f"{_folder_name(d.source)}/{d.path}"
                                 if len(sources_of[d.path]) > 1 and d.source else d.path) for d in documents}


def _folder_name(source: str) -> str:
    """The last part of a source's path, written with either slash."""
    return PurePosixPath(source.replace("\\", "/")).name


def listing(names: Sequence[str], marks: bool = False) -> str:
    """"a, b and c" (with [n] after each when `marks`), at most INDEX_FILES.max_listed named."""
    shown = [f"{n} [{i}]" if marks else n for i, n in enumerate(names[:INDEX_FILES.max_listed], 1)]
    rest = len(names) - len(shown)
    if rest:
        return ", ".join(shown) + f" and {rest} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def one_word_names(paths: Iterable[str]) -> frozenset[str]:
    """The files' names that are one word, lower case, extension and folders left out ("free" of
    manuals/free.pdf, "sqlite3"; not "users-and-groups", not a one-letter "a")."""
    stems = (PurePosixPath(path.replace("\\", "/")).stem.lower() for path in paths if path)
    return frozenset(s for s in stems if len(s) > 1 and re.fullmatch(r"[a-z0-9]+", s))


def one_word_names_of(retriever) -> Callable[[], frozenset[str]] | None:
    """`one_word_names` of the files a retriever searches, read on first use and kept on the
    retriever (one per question in ask, chat and the app): what grounding.documents.files_named
    matches. None for a retriever without an index (a test's)."""
    if getattr(retriever, "store", None) is None:
        return None

    def names() -> frozenset[str]:
        if retriever.one_word_names is None:
            retriever.one_word_names = one_word_names(f.path for f in IndexFiles(retriever).documents())
        return retriever.one_word_names
    return names
