"""Whether an index can serve what `index status` reports, and repairing what can be rebuilt
from its tables: the full-text index, the vector index, the metadata file, and the passages of
a document an interrupted run left unfinished (orphans: searchable and counted until removed).

A trial deleted passages.lance/_indices: status said healthy, every search failed "damaged", and
`index add` of the same folder said "unchanged" and repaired nothing (issue 34 item 2)."""
from __future__ import annotations

import json
import time
from pathlib import Path

from models.errors import AssistantError, IndexDamaged

from .store_tables import DOCUMENTS, META_FILE, PASSAGES, column, quote

MAX_FILTERED_DOCS = 5000  # orphans of one interrupted run are a batch's documents, far fewer


def orphan_doc_ids(store) -> set[str]:
    """Doc ids of passages without a documents row. Only a run that has not ended leaves any,
    and its source is then marked incomplete: an index without one is not read through."""
    sources = store.meta.get("sources", {})
    if not any(isinstance(info, dict) and info.get("incomplete") for info in sources.values()):
        return set()
    return set(column(store.passages, "doc_id")) - set(column(store.documents, "doc_id"))


def searchable_filter(store) -> str | None:
    """A where-clause that keeps orphans out of search results (None: nothing to keep out)."""
    orphans = sorted(orphan_doc_ids(store))[:MAX_FILTERED_DOCS]
    return f"doc_id NOT IN ({quote(orphans)})" if orphans else None


def _probe(store, what: str, read) -> str | None:
    from .store_errors import _damage

    try:
        read()
    except AssistantError as exc:
        return f"{what}: {exc}"
    except Exception as exc:  # a Lance error: the file behind it is missing or unreadable
        return f"{what} is unreadable: {_damage(exc, store.path)}"
    return None


def problems(store) -> list[str]:
    """What is wrong with the index, one phrase each; [] when its tables, full-text index and
    vector index are present and readable."""
    passages, documents = store.passages, store.documents
    found = [_probe(store, "the passages table", lambda: passages.search().limit(1).select(["id"]).to_list()),
             _probe(store, "the documents table", lambda: documents.search().limit(1).select(["doc_id"]).to_list())]
    names = [getattr(ix, "columns", None) for ix in passages.list_indices()]
    if ["search_text"] not in names:
        found.append("the full-text index is missing")
    else:
        found.append(_probe(store, "the full-text index", lambda: passages.search(
            "index", query_type="fts", fts_columns="search_text").limit(1).select(["id"]).to_list()))
    if ["vector"] in names:
        dim = int(store.meta.get("dim") or 1)
        found.append(_probe(store, "the vector index", lambda: passages.search(
            [0.0] * (dim - 1) + [1.0], vector_column_name="vector").limit(1).nprobes(1).select(["id"]).to_list()))
    return [p for p in found if p]


def rebuild_search_indices(store, force: bool = False) -> list[str]:
    """Rebuild the full-text index (and the vector index, when the index had one or is large
    enough for one) when missing or unreadable, or always with `force`; what was rebuilt."""
    from lancedb.index import FTS

    from .store_upkeep import VECTOR_INDEX_MIN_ROWS, build_vector_index

    broken = " ".join(problems(store))
    done = []
    table = store.passages
    if force or "full-text index" in broken:
        table.create_index("search_text", config=FTS(with_position=False), replace=True)
        done.append("full-text index")
    rows = table.count_rows()
    if (force or "vector index" in broken) and rows >= VECTOR_INDEX_MIN_ROWS:
        build_vector_index(table, rows)
        store.meta["vector_index_rows"] = rows
        done.append("vector index")
    return done


def rebuild_meta(path: Path, embedding_model: str, dim: int) -> None:
    """Write a metadata file for tables that lost theirs: the sources from the documents table
    (their kind from what the path is), the embedding model the user runs with, if its vectors
    have the tables' dimension."""
    import lancedb

    from .sources import kind_of

    db = lancedb.connect(str(path))
    if not {PASSAGES, DOCUMENTS} <= set(db.table_names()):
        raise IndexDamaged(path, "its tables are missing too")
    table_dim = db.open_table(PASSAGES).schema.field("vector").type.list_size
    if table_dim != dim:
        raise IndexDamaged(path, f"its vectors have {table_dim} dimensions, the embedding model {embedding_model} "
                                 f"{dim}: repair it with the model it was built with (--embedder-backend, embedder)")
    sources = {}
    for source in sorted(set(column(db.open_table(DOCUMENTS), "source"))):
        try:
            kind = kind_of(Path(source)).lower()
        except AssistantError:  # gone since: removable all the same
            kind = "folder"
        sources[source] = {"kind": kind}
    meta = {"embedding_model": embedding_model, "dim": dim, "created": time.time(), "sources": sources,
            "repaired": time.time()}
    tmp = path / (META_FILE + ".tmp")
    tmp.write_text(json.dumps(meta, indent=1), encoding="utf-8")
    tmp.replace(path / META_FILE)


def repair(store) -> list[str]:
    """Under the write lock: orphans removed, broken search indices rebuilt; what was done."""
    store.hold_write_lock(reload_meta=True)
    with store.errors():
        removed = store.remove_orphan_passages()
        done = rebuild_search_indices(store)
        store.save_meta()
    if removed:
        done.append(f"{removed} unfinished documents' passages removed")
    return done
