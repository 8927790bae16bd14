"""Index a Wikipedia pages-articles dump (.xml or .xml.bz2, multistream too), streamed.

Memory stays flat with the dump's length on a fresh build: pages are parsed one at a time and
written in batches. Re-running the same dump resumes: articles already committed with the
same wikitext are skipped before parsing (that needs the committed titles in memory).
"""
from __future__ import annotations

import bz2
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from models.errors import AssistantError, BadInputError

from .documents import Document, content_hash
from .names import safe_name
from .pipeline import write_documents
from .progress import Progress, ProgressCallback, StopCheck
from .sources import check_dump_file
from .store import IndexStore
from .wikitext import article_sections, is_disambiguation, is_redirect


@dataclass
class WikiSummary:
    articles: int = 0  # indexed now
    unchanged: int = 0
    removed: int = 0
    passages: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> pages
    ended_early: str = ""  # why reading stopped before the end of the dump (cut or damaged)

    def line(self) -> str:
        skipped = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items())) or "none"
        line = (f"{self.articles} articles indexed, {self.unchanged} unchanged, {self.removed} removed; "
                f"{self.passages} passages written; skipped: {skipped}")
        if self.ended_early:
            line += (f"\nwarning: the dump is cut or damaged ({self.ended_early}); "
                     "the articles before that point are indexed")
        return line


def is_dump_error(exc: Exception) -> bool:
    """Errors of reading a truncated or damaged dump (bz2, XML, mwxml), not of our own code."""
    return (isinstance(exc, (OSError, EOFError)) or type(exc).__module__.startswith(("xml", "mwxml", "mwtypes"))
            or (isinstance(exc, ValueError) and "compressed" in str(exc).lower()))


def check_limit(limit: int | None) -> None:
    """None is no limit; 0 or less would silently mean everything or nothing."""
    if limit is not None and limit < 1:
        raise AssistantError(f"--limit must be at least 1 (a number of articles), got {limit}")


def dump_source(dump: Path) -> str:
    """The source name a dump is recorded under (and its passage ids derive from): its resolved
    path, escaped when not UTF-8, as folders are."""
    return safe_name(str(Path(dump).expanduser().resolve()))


def url_title(title: str) -> str:
    return title.replace(" ", "_")


def open_dump(path: Path):
    """The raw file (for progress by bytes read) and a stream of its XML."""
    path = check_dump_file(path)
    shown = safe_name(str(path))
    raw = path.open("rb")
    head = raw.read(6)
    raw.seek(0)
    if head.startswith(b"BZh"):
        return raw, bz2.BZ2File(raw)  # reads concatenated (multistream) bz2 streams too
    if head.lstrip().startswith(b"<") or head.startswith(b"\xef\xbb\xbf"):
        return raw, raw
    raw.close()
    raise BadInputError(f"{shown} is not a Wikipedia XML dump (.xml or .xml.bz2)")


class _WithSiteinfo:
    """A dump stream with an empty <siteinfo> added after <mediawiki ...> when it has none:
    mwxml refuses such dumps (exports of single pages often lack it), yet each page carries
    its own namespace number, which is all the indexer needs."""

    def __init__(self, stream, peek_bytes: int = 1 << 16):
        head = stream.read(peek_bytes)
        if b"<siteinfo" not in head:
            match = re.search(rb"<mediawiki\b[^>]*>", head)
            if match:
                head = head[:match.end()] + b"<siteinfo></siteinfo>" + head[match.end():]
        self._head, self._stream = head, stream

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size is None or size < 0:
                data, self._head = self._head + self._stream.read(), b""
                return data
            data, self._head = self._head[:size], self._head[size:]
            return data
        return self._stream.read(size)


def article_text(page) -> tuple[str, str]:
    """(wikitext, "") for an article page; ("", reason) for a page that is not indexed. Shared
    by the single-machine path and the cluster's shard workers, so both skip the same pages."""
    if page.namespace != 0:
        return "", "not articles"
    revision = next(iter(page), None)
    text = (revision.text if revision is not None else "") or ""
    if page.redirect or is_redirect(text):
        return "", "redirects"
    if is_disambiguation(page.title, text):
        return "", "disambiguation pages"
    return text, ""


def article_document(source: str, title: str, text: str, replaces: bool = False) -> Document | None:
    """The article as a Document of cleaned sections; None when no text is left."""
    sections = article_sections(text)
    if not sections:
        return None
    return Document(source=source, path=url_title(title), title=title, sections=sections,
                    content_hash=content_hash(text.encode("utf-8")), size=len(text), replaces=replaces)


def read_pages(stream, source: str):
    """mwxml's page iterator over an XML stream; an unreadable head is one line."""
    import mwxml

    try:
        return mwxml.Dump.from_file(_WithSiteinfo(stream))
    except Exception as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise AssistantError(f"cannot read dump {source}: {first}") from None


def index_wikipedia(store: IndexStore, embedder, dump: Path,
                    on_progress: ProgressCallback | None = None,
                    should_stop: StopCheck | None = None,
                    limit: int | None = None) -> WikiSummary:
    check_limit(limit)
    raw, stream = open_dump(dump)
    dump = Path(dump).expanduser().resolve()
    source = dump_source(dump)
    summary = WikiSummary()
    try:
        pages = read_pages(stream, source)
    except AssistantError:
        raw.close()
        raise
    store.begin_source(source, "wikipedia", resume={"limit": limit} if limit else {})
    store.remove_orphan_passages()
    known = store.documents_of(source)  # empty on a fresh build: nothing grows with the dump
    seen: set[str] = set()
    progress = Progress(total_bytes=dump.stat().st_size)

    def skip(reason: str):
        summary.skipped[reason] = summary.skipped.get(reason, 0) + 1

    def articles() -> Iterator[Document]:
        """All readable articles; a damaged or cut tail ends the stream instead of losing the
        batch in progress (and everything after it is simply not in this run)."""
        try:
            yield from readable_articles()
        except Exception as exc:
            if isinstance(exc, AssistantError) or not is_dump_error(exc):
                raise
            summary.ended_early = (str(exc).splitlines() or [type(exc).__name__])[0]

    def readable_articles() -> Iterator[Document]:
        taken = 0  # articles considered (new, changed or unchanged), for --limit
        for page in pages:
            if limit and taken >= limit:
                return
            progress.files_done += 1
            progress.bytes_done = raw.tell()
            progress.current = page.title
            progress.report(on_progress)
            text, reason = article_text(page)
            if reason:
                skip(reason)
                continue
            path = url_title(page.title)
            taken += 1
            if known:
                seen.add(path)
            record = known.get(path)
            if record and record.content_hash == content_hash(text.encode("utf-8")):
                summary.unchanged += 1
                continue
            doc = article_document(source, page.title, text, replaces=record is not None)
            if doc is None:
                skip("empty articles")
                continue
            summary.articles += 1
            yield doc

    try:
        summary.passages = write_documents(store, embedder, articles(), progress, on_progress, should_stop)
    finally:
        raw.close()
    if not summary.articles and not summary.unchanged and not known:  # nothing to register or report
        store.remove_source(source)
        why = f"the dump is cut or damaged ({summary.ended_early})" if summary.ended_early else \
            "skipped: " + (", ".join(f"{n} {why}" for why, n in sorted(summary.skipped.items())) or "no pages")
        raise AssistantError(f"no articles in {safe_name(str(dump))}: {why}")
    if known and not limit and not summary.ended_early:  # unseen may lie past the cut
        gone = [record.doc_id for path, record in known.items() if path not in seen]
        store.remove_documents(gone)
        summary.removed = len(gone)
    store.meta.setdefault("sources", {})[source] = {"kind": "wikipedia"}
    store.finish()
    return summary
