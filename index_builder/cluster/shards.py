"""How a dump or passage file is cut into shards, the unit of work and of resuming.

- A multistream `.xml.bz2` with its `-index.txt(.bz2)` beside it: groups of STREAMS_PER_SHARD
  bz2 streams, by the compressed byte offsets the index lists; each worker reads its own range.
- A folder of numbered `pages-articles{1..N}` files: one shard per file, read whole by a worker
  (each file is its own source, as when indexed one by one on a single machine).
- Any other dump (plain `.xml`, or a single-stream `.bz2`, which cannot be entered mid-way): the
  driver decompresses it once, in order, and cuts the XML on page boundaries every SHARD_XML_BYTES;
  workers get the pieces. Decompressing is cheap next to parsing and embedding, which run in parallel.
- A passage file: the driver reads it with the single-machine reader (ids, repeated ids and
  title runs exactly as there) and hands out groups of about SHARD_PASSAGES passages.

Cutting is deterministic, so shard N is the same shard in every run of the same file: a re-run
skips the shards already committed. `Part.plan` records what the cut depended on.
"""
from __future__ import annotations

import bz2
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from models.errors import AssistantError

from ..documents import Document
from ..names import safe_name
from ..passages import PassageSummary, file_documents, open_passage_file, record_reader
from ..wikipedia import dump_source, is_dump_error, open_dump

STREAMS_PER_SHARD = 100  # ~100 pages per stream in Wikimedia's multistream dumps: ~10,000 pages
SHARD_XML_BYTES = 16 << 20  # of decompressed XML: ~3,000 articles, ~8,000 passages
SHARD_PASSAGES = 20_000
READ_BLOCK = 1 << 20
_PAGE_END = b"</page>"
_NUMBERED = re.compile(r"pages-articles(?:-multistream)?(\d+)\.xml")


@dataclass
class Shard:
    source: str
    number: int
    kind: str  # "streams" (a byte range of bz2 streams), "file", "xml" (a cut piece), "documents"
    path: str = ""
    start: int = 0
    end: int = 0
    header: bytes = b""  # <mediawiki><siteinfo>...: what a piece needs to be a dump of its own
    body: bytes = b""
    documents: list[Document] = field(default_factory=list)


@dataclass
class Part:
    """One source to build: its shards, made lazily, and what their cut depends on."""
    source: str
    kind: str  # the source kind recorded in the index: "wikipedia" or "passages"
    plan: dict
    shards: Callable[[], Iterator[Shard]]
    total: int | None = None  # shards, when known before reading
    ended_early: str = ""  # the driver's read stopped at a damaged or cut place
    summary: PassageSummary | None = None  # passage files: what the driver's reader counted


def _stat_plan(path: Path, **extra) -> dict:
    stat = path.stat()
    return dict(file=safe_name(str(path)), size=stat.st_size, mtime=int(stat.st_mtime), **extra)


def wikipedia_parts(dump: Path, xml_bytes: int = SHARD_XML_BYTES,
                    streams_per_shard: int = STREAMS_PER_SHARD) -> list[Part]:
    dump = Path(dump).expanduser()
    if dump.is_dir():
        return _folder_parts(dump)
    raw, _ = open_dump(dump)  # a missing file or a wrong format is one line, before any work
    raw.close()
    dump = dump.resolve()
    index = multistream_index(dump)
    offsets = stream_offsets(index) if index is not None else []
    if offsets and offsets[0] > 0:  # Wikimedia's: the head in a stream of its own, before the pages
        return [_multistream_part(dump, offsets, streams_per_shard)]
    part = Part(dump_source(dump), "wikipedia", _stat_plan(dump, cut="xml", bytes=xml_bytes), lambda: iter(()))
    part.shards = lambda: _xml_pieces(dump, part, xml_bytes)
    return [part]


def _folder_parts(folder: Path) -> list[Part]:
    files = sorted((p for p in folder.iterdir() if p.is_file() and _NUMBERED.search(p.name)
                    and "-index" not in p.name), key=lambda p: int(_NUMBERED.search(p.name).group(1)))
    if not files:
        raise AssistantError(f"no pages-articles{{1..N}} dump files in {safe_name(str(folder))} "
                             "(give a dump file, or a folder of numbered ones)")
    parts = []
    for path in files:
        path = path.resolve()
        source = dump_source(path)
        shard = Shard(source, 0, "file", path=str(path))
        parts.append(Part(source, "wikipedia", _stat_plan(path, cut="file"), lambda s=shard: iter([s]), total=1))
    return parts


def multistream_index(dump: Path) -> Path | None:
    """The -index.txt(.bz2) file of a multistream dump, when it lies beside it."""
    if "multistream" not in dump.name:
        return None
    name = dump.name.replace("multistream", "multistream-index", 1).replace(".xml", ".txt", 1)
    for candidate in (name, name.removesuffix(".bz2"), name + ".bz2" if not name.endswith(".bz2") else ""):
        if candidate and (dump.parent / candidate).is_file():
            return dump.parent / candidate
    return None


def stream_offsets(index: Path) -> list[int]:
    """The distinct stream offsets the index lists (`offset:page id:title` per line), in order."""
    opener = bz2.open if index.name.endswith(".bz2") else open
    offsets: list[int] = []
    try:
        with opener(index, "rt", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                head = line.split(":", 1)[0]
                if head.isdigit() and (not offsets or int(head) != offsets[-1]):
                    offsets.append(int(head))
    except (OSError, EOFError, ValueError) as exc:
        raise AssistantError(f"cannot read the multistream index {safe_name(str(index))}: {exc}") from None
    if not offsets or offsets != sorted(offsets):
        raise AssistantError(f"{safe_name(str(index))} is not a multistream index (offset:id:title lines)")
    return offsets


def _multistream_part(dump: Path, offsets: list[int], per_shard: int) -> Part:
    size = dump.stat().st_size
    with dump.open("rb") as fh:  # the first stream holds <mediawiki> and <siteinfo>, no pages
        head = bz2.decompress(fh.read(offsets[0])) if offsets[0] else b""
    header = head[:head.find(b"<page>")] if b"<page>" in head else head
    source = dump_source(dump)
    starts = offsets[::per_shard]
    ranges = list(zip(starts, starts[1:] + [size]))
    plan = _stat_plan(dump, cut="streams", streams=per_shard, index=len(offsets))

    def shards() -> Iterator[Shard]:
        for number, (start, end) in enumerate(ranges):
            yield Shard(source, number, "streams", path=str(dump), start=start, end=end, header=header)

    return Part(source, "wikipedia", plan, shards, total=len(ranges))


def _xml_pieces(dump: Path, part: Part, piece_bytes: int) -> Iterator[Shard]:
    """The dump's XML cut after a </page> every ~piece_bytes; the head before the first <page>
    goes with every piece. A damaged or cut dump ends the pieces where it breaks."""
    raw, stream = open_dump(dump)
    header, buffer, number = None, b"", 0
    try:
        while True:
            try:
                block = stream.read(READ_BLOCK)
            except Exception as exc:
                if not is_dump_error(exc):
                    raise
                part.ended_early = (str(exc).splitlines() or [type(exc).__name__])[0]
                block = b""
            buffer += block
            if header is None:
                start = buffer.find(b"<page>")
                if start < 0 and block:
                    continue
                header, buffer = (buffer[:start], buffer[start:]) if start >= 0 else (buffer, b"")
            while (cut := _cut(buffer, piece_bytes)) or not block:
                body, buffer = (buffer[:cut], buffer[cut:]) if cut else (buffer, b"")
                if b"<page>" in body:  # not the closing tag alone
                    yield Shard(part.source, number, "xml", header=header, body=body)
                    number += 1
                if not block and not buffer:
                    part.total = number
                    return
    finally:
        raw.close()


def _cut(buffer: bytes, piece_bytes: int) -> int:
    """Where a piece of `buffer` ends: after its last </page> within piece_bytes (after the first
    one beyond, for a page longer than a piece); 0 while the buffer holds less than a piece."""
    if len(buffer) < piece_bytes:
        return 0
    end = buffer.rfind(_PAGE_END, 0, piece_bytes)
    if end < 0:
        end = buffer.find(_PAGE_END, piece_bytes)
    return end + len(_PAGE_END) if end >= 0 else 0


def passage_parts(file: Path, per_shard: int = SHARD_PASSAGES) -> list[Part]:
    file = Path(file).expanduser()
    reader = record_reader(file)  # a missing file or a wrong kind is one line, before any work
    file = file.resolve()
    source = safe_name(str(file))
    part = Part(source, "passages", _stat_plan(file, cut="passages", passages=per_shard), lambda: iter(()))

    def shards() -> Iterator[Shard]:
        part.summary = summary = PassageSummary()
        group: list[Document] = []
        count = number = 0
        try:
            with open_passage_file(file) as fh:
                for doc in file_documents(reader(fh, summary), summary, source):
                    if not doc.chunks:
                        continue
                    group.append(doc)
                    count += len(doc.chunks)
                    if count >= per_shard:
                        yield Shard(source, number, "documents", documents=group)
                        group, count, number = [], 0, number + 1
        except UnicodeDecodeError:
            raise AssistantError(f"{source} is not UTF-8 text; passage files must be UTF-8") from None
        except OSError as exc:
            raise AssistantError(f"cannot read {source}: {exc.strerror}") from None
        if group:
            yield Shard(source, number, "documents", documents=group)
            number += 1
        part.total = number

    part.shards = shards
    return [part]
