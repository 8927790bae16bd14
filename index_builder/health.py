"""Whether an index can serve what `index status` reports, and repairing what can be rebuilt
from its tables: the full-text index, the vector index, the metadata file (lost or unreadable;
with the sources an interrupted run left unfinished and the passages still waiting for their
vectors), and the passages of a document an interrupted run left unfinished (orphans:
searchable and counted until removed).

A trial deleted passages.lance/_indices: status said healthy, every search failed "damaged", and
`index add` of the same folder said "unchanged" and repaired nothing (issue 34 item 2)."""
from __future__ import annotations

import json
import time
from pathlib import Path

from models.errors import AssistantError, IndexDamaged

from .store_tables import DOCUMENTS, META_FILE, PASSAGES, column, quote, read_meta
from .store_vectors import PENDING, WAITING

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


def meta_problem(path: Path) -> str | None:
    """Why the metadata file must be rebuilt from the tables ("is missing", "is unreadable: ...");
    None when it reads, or when there are no tables to rebuild it from."""
    if not ((path / f"{PASSAGES}.lance").is_dir() and (path / f"{DOCUMENTS}.lance").is_dir()):
        return None
    if not (path / META_FILE).is_file():
        return "is missing"
    try:
        read_meta(path)
    except IndexDamaged:
        return "is unreadable"
    return None


def _unfinished_sources(passages, documents) -> set[str]:
    """Sources an interrupted run left unfinished: passages still waiting for their vector, or
    passages whose document has no row (orphans)."""
    waiting = passages.search().where(WAITING).select(["source"]).limit(None).to_arrow()
    rows = passages.search().select(["doc_id", "source"]).limit(None).to_arrow()
    known = set(column(documents, "doc_id"))
    orphans = {source for doc_id, source in zip(rows["doc_id"].to_pylist(), rows["source"].to_pylist())
               if doc_id not in known}
    return set(waiting["source"].to_pylist()) | orphans


def meta_from_tables(path: Path, embedding_model: str, dim: int) -> dict:
    """The metadata of tables that lost theirs: every source the tables hold (its kind from what
    the path is; incomplete when a run left it unfinished), whether passages wait for vectors,
    the last update (when no run was left unfinished), and the embedding model the user runs with if its vectors have the tables'
    dimension. Collections and resume options live only in the file: the rebuilt one has none."""
    import lancedb

    from .sources import kind_of

    db = lancedb.connect(str(path))
    if not {PASSAGES, DOCUMENTS} <= set(db.table_names()):
        raise beyond_repair(path, "its tables are missing too")
    passages, documents = db.open_table(PASSAGES), db.open_table(DOCUMENTS)
    table_dim = passages.schema.field("vector").type.list_size
    if table_dim != dim:
        raise AssistantError(f"the index at {path} has vectors of {table_dim} dimensions, the embedding model "
                             f"{embedding_model} {dim}: repair it with the model it was built with "
                             "(--embedder-backend, embedder)")
    unfinished = _unfinished_sources(passages, documents)
    sources = {}
    for source in sorted(set(column(documents, "source")) | unfinished):
        try:
            kind = kind_of(Path(source)).lower()
        except AssistantError:  # gone since: removable all the same
            kind = "folder"
        sources[source] = {"kind": kind, **({"incomplete": True} if source in unfinished else {})}
    meta = {"embedding_model": embedding_model, "dim": dim, "created": time.time(), "sources": sources,
            "repaired": time.time()}
    indexed = [t for t in column(documents, "indexed_at") if t]
    if indexed and not unfinished:  # the last run finished: about when its last document was written
        meta["updated"] = max(indexed)
    if passages.count_rows(WAITING):
        meta[PENDING] = True  # the next run embeds them (store_vectors)
    return meta


def restore_meta(path: Path, embedding_model: str, dim: int) -> str:
    """Under the write lock: a lost or unreadable metadata file rebuilt from the tables, an
    unreadable one kept beside it; what was done, as `index repair` says it."""
    why = meta_problem(path)
    meta = meta_from_tables(path, embedding_model, dim)
    kept = ""
    if why != "is missing":
        aside = path / (META_FILE + ".damaged")
        (path / META_FILE).replace(aside)
        kept = f" (the unreadable one kept as {aside.name})"
    tmp = path / (META_FILE + ".tmp")
    tmp.write_text(json.dumps(meta, indent=1), encoding="utf-8")
    tmp.replace(path / META_FILE)
    return (f"metadata file {META_FILE} rebuilt from the tables{kept}; every source is in the default "
            "collection (the file alone knew the others)")


def beyond_repair(path: Path, why: str) -> AssistantError:
    """What `index repair` says when the tables themselves are damaged or gone."""
    return AssistantError(f"the index at {path} is damaged beyond repair ({why}): rebuild it with "
                          f"`assistant index add ...` into a new --index, or delete {path}")


def repair(store) -> list[str]:
    """Under the write lock: orphans removed, broken search indices rebuilt, passages waiting for
    their vectors made known to the next run (a metadata file that lost the mark); what was done."""
    store.hold_write_lock(reload_meta=True)
    with store.errors():
        removed = store.remove_orphan_passages()
        done = rebuild_search_indices(store)
        waiting = store.passages.count_rows(WAITING)
        if waiting:
            store.meta[PENDING] = True
        store.save_meta()
    if removed:
        done.append(f"{removed} unfinished documents' passages removed")
    if waiting:
        done.append(f"{waiting} passages wait for their vectors: any `assistant index add` embeds them")
    return done
