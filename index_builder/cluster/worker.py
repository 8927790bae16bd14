"""What a worker does with one shard: read its pages (or take its documents), clean and chunk
them with the single-machine code, embed, and write the rows as Lance fragments of the index's
tables, uncommitted. The driver commits them; a shard whose fragments are never committed (a
lost worker, a killed driver) leaves only unreferenced files, and its passages are made again.

Everything row-shaped comes from index_builder.pipeline (passage_row, document_record,
embedding_text), so passage ids, titles and texts are those of the single-machine path.
"""
from __future__ import annotations

import bz2
import io
import json
import os
import resource
import time
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
import pyarrow as pa

from ..documents import Document
from ..pipeline import EMBED_BATCH_PASSAGES, document_record, embedding_text, passage_row
from ..wikipedia import article_document, article_text, is_dump_error, open_dump, read_pages
from .shards import Shard

_CLOSE = b"</mediawiki>"


@dataclass
class ShardResult:
    source: str
    number: int
    passage_fragments: list[str] = field(default_factory=list)  # FragmentMetadata JSON
    document_fragments: list[str] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)
    documents: int = 0
    passages: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    ended_early: str = ""
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    worker_pid: int = 0


class _Chain(io.RawIOBase):
    """Several byte sources read as one stream (a piece's header, its pages, a closing tag)."""

    def __init__(self, *parts):
        self.parts = [io.BytesIO(p) if isinstance(p, bytes) else p for p in parts]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while self.parts:
            data = self.parts[0].read(len(buffer))
            if data:
                buffer[:len(data)] = data
                return len(data)
            self.parts.pop(0)
        return 0


def _without_close(data: bytes) -> bytes:
    at = data.rfind(_CLOSE)
    return data[:at] if at >= 0 else data


def shard_stream(shard: Shard):
    """The shard as one XML dump stream (and the file to close afterwards, if any)."""
    if shard.kind == "xml":
        return io.BufferedReader(_Chain(shard.header, _without_close(shard.body), _CLOSE)), None
    if shard.kind == "streams":
        # A shard is a bounded number of streams (~50 MB of XML): decompressed at once, the
        # dump's closing tag (in its last stream) dropped.
        with open(shard.path, "rb") as fh:
            fh.seek(shard.start)
            body = _without_close(bz2.decompress(fh.read(shard.end - shard.start)))
        return io.BufferedReader(_Chain(shard.header, body, _CLOSE)), None
    raw, stream = open_dump(shard.path)  # "file": a whole dump, with its own head and close
    return stream, raw


def shard_documents(shard: Shard, result: ShardResult) -> Iterator[Document]:
    """The shard's documents; pages skipped as the single-machine path skips them are counted."""
    if shard.kind == "documents":
        yield from shard.documents
        return
    stream, raw = shard_stream(shard)

    def skip(reason: str) -> None:
        result.skipped[reason] = result.skipped.get(reason, 0) + 1

    try:
        for page in read_pages(stream, shard.source):
            text, reason = article_text(page)
            if reason:
                skip(reason)
                continue
            doc = article_document(shard.source, page.title, text)
            if doc is None:
                skip("empty articles")
                continue
            yield doc
    except Exception as exc:
        if not is_dump_error(exc):
            raise
        result.ended_early = (str(exc).splitlines() or [type(exc).__name__])[0]
    finally:
        if raw is not None:
            raw.close()


def _passage_batches(docs: Iterator[Document], embedder, schema: pa.Schema, result: ShardResult,
                     records: list) -> Iterator[pa.RecordBatch]:
    """Embedded passage rows in batches; each document's record is added once its passages are."""
    items: list[tuple[Document, int, object]] = []

    def flush() -> pa.RecordBatch:
        vectors = np.asarray(embedder.encode([embedding_text(d, c.text, c.section) for d, _, c in items]),
                             dtype=np.float32)
        rows = [passage_row(d, n, c, None) for d, n, c in items]
        items.clear()
        result.passages += len(rows)
        columns = {name: pa.array([r[name] for r in rows], type=schema.field(name).type)
                   for name in schema.names if name != "vector"}
        dim = schema.field("vector").type.list_size
        columns["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), dim)
        return pa.RecordBatch.from_arrays([columns[n] for n in schema.names], schema=schema)

    for doc in docs:
        count = 0
        for chunk in doc.passages():
            items.append((doc, count, chunk))
            count += 1
            if len(items) >= EMBED_BATCH_PASSAGES:
                yield flush()
        records.append(document_record(doc, count))
        result.doc_ids.append(doc.doc_id)
        result.documents += 1
    if items:
        yield flush()


def peak_rss_mb() -> float:
    """This worker's peak resident memory (VmHWM: ru_maxrss would carry a forking parent's peak)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_shard(shard: Shard, embedder, tables: dict, parsed: ShardResult | None = None) -> ShardResult:
    """Parse, chunk, embed and write one shard as uncommitted fragments. `tables` holds each
    table's uri, schema and data storage version (from the driver). `parsed`: what the parse
    stage counted, when another worker parsed the shard into documents."""
    from lance.fragment import write_fragments

    started = time.monotonic()
    result = parsed or ShardResult(shard.source, shard.number)
    records: list = []
    passages = tables["passages"]
    batches = _passage_batches(shard_documents(shard, result), embedder, passages["schema"], result, records)
    reader = pa.RecordBatchReader.from_batches(passages["schema"], batches)  # streamed: memory stays flat
    fragments = write_fragments(reader, passages["uri"], schema=passages["schema"],
                                data_storage_version=passages["version"])
    result.passage_fragments = [json.dumps(f.to_json()) for f in fragments]
    if records:
        documents = tables["documents"]
        now = time.time()
        rows = [dict(r.__dict__, indexed_at=now) for r in records]
        table = pa.Table.from_pylist(rows, schema=documents["schema"])
        fragments = write_fragments(table, documents["uri"], schema=documents["schema"],
                                    data_storage_version=documents["version"])
        result.document_fragments = [json.dumps(f.to_json()) for f in fragments]
    result.seconds = time.monotonic() - started
    result.peak_rss_mb = peak_rss_mb()
    result.worker_pid = os.getpid()
    return result
