"""Index a Wikipedia pages-articles dump (.xml or .xml.bz2, multistream too), streamed.

Memory stays flat with the dump's length on a fresh build: pages are parsed one at a time and
written in batches. Re-running the same dump resumes: articles already committed with the
same wikitext are skipped before parsing (that needs the committed titles in memory).
"""
from __future__ import annotations

import bz2
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from models.errors import AssistantError

from .documents import Document, content_hash
from .pipeline import Progress, ProgressCallback, StopCheck, write_documents
from .store import IndexStore
from .wikitext import article_sections, is_disambiguation, is_redirect


@dataclass
class WikiSummary:
    articles: int = 0  # indexed now
    unchanged: int = 0
    removed: int = 0
    passages: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> pages

    def line(self) -> str:
        skipped = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items())) or "none"
        return (f"{self.articles} articles indexed, {self.unchanged} unchanged, {self.removed} removed; "
                f"{self.passages} passages written; skipped: {skipped}")


def url_title(title: str) -> str:
    return title.replace(" ", "_")


def open_dump(path: Path):
    """The raw file (for progress by bytes read) and a stream of its XML."""
    path = Path(path).expanduser()
    if not path.exists():
        raise AssistantError(f"no such dump file: {path}")
    if not path.is_file():
        raise AssistantError(f"not a file: {path} (give a pages-articles .xml or .xml.bz2 dump)")
    raw = path.open("rb")
    head = raw.read(6)
    raw.seek(0)
    if head.startswith(b"BZh"):
        return raw, bz2.BZ2File(raw)  # reads concatenated (multistream) bz2 streams too
    if head.lstrip().startswith(b"<") or head.startswith(b"\xef\xbb\xbf"):
        return raw, raw
    raw.close()
    raise AssistantError(f"{path} is not a Wikipedia XML dump (.xml or .xml.bz2)")


def index_wikipedia(store: IndexStore, embedder, dump: Path,
                    on_progress: ProgressCallback | None = None,
                    should_stop: StopCheck | None = None,
                    limit: int | None = None) -> WikiSummary:
    import mwxml

    raw, stream = open_dump(dump)
    source = str(Path(dump).expanduser().resolve())
    summary = WikiSummary()
    store.remove_orphan_passages()
    known = store.documents_of(source)  # empty on a fresh build: nothing grows with the dump
    seen: set[str] = set()
    progress = Progress(total_bytes=Path(source).stat().st_size)
    try:
        pages = mwxml.Dump.from_file(stream)
    except Exception as exc:
        raw.close()
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise AssistantError(f"cannot read dump {dump}: {first}") from None

    def skip(reason: str):
        summary.skipped[reason] = summary.skipped.get(reason, 0) + 1

    def articles() -> Iterator[Document]:
        taken = 0  # articles considered (new, changed or unchanged), for --limit
        for page in pages:
            if limit and taken >= limit:
                return
            progress.files_done += 1
            progress.bytes_done = raw.tell()
            progress.current = page.title
            progress.report(on_progress)
            if page.namespace != 0:
                skip("not articles")
                continue
            revision = next(iter(page), None)
            text = (revision.text if revision is not None else "") or ""
            if page.redirect or is_redirect(text):
                skip("redirects")
                continue
            if is_disambiguation(page.title, text):
                skip("disambiguation pages")
                continue
            path = url_title(page.title)
            taken += 1
            if known:
                seen.add(path)
            digest = content_hash(text.encode("utf-8"))
            record = known.get(path)
            if record and record.content_hash == digest:
                summary.unchanged += 1
                continue
            sections = article_sections(text)
            if not sections:
                skip("empty articles")
                continue
            summary.articles += 1
            yield Document(source=source, path=path, title=page.title, sections=sections,
                           content_hash=digest, size=len(text), replaces=record is not None)

    try:
        summary.passages = write_documents(store, embedder, articles(), progress, on_progress, should_stop)
    except (OSError, EOFError, ValueError) as exc:  # a truncated or damaged dump
        if isinstance(exc, AssistantError):
            raise
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise AssistantError(f"cannot read dump {dump}: {first}; what was read so far is indexed") from None
    except Exception as exc:
        if isinstance(exc, AssistantError):
            raise
        if type(exc).__module__.startswith(("xml", "mwxml", "mwtypes")):
            first = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise AssistantError(f"cannot read dump {dump}: {first}") from None
        raise
    finally:
        raw.close()
    if known and not limit:
        gone = [record.doc_id for path, record in known.items() if path not in seen]
        store.remove_documents(gone)
        summary.removed = len(gone)
    store.meta.setdefault("sources", {})[source] = {"kind": "wikipedia"}
    store.finish()
    return summary
