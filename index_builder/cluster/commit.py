"""The driver's side of a shard: its result out of Ray (failures as one line), and the commit
of the fragments its worker wrote (see build.py for the protocol)."""
from __future__ import annotations

from models.errors import AssistantError

from ..store import IndexStore
from .worker import ShardResult


def shard_result(ray, ref) -> ShardResult:
    """The worker's result; a worker error, or a worker lost more often than it is restarted,
    is one line (the committed shards stay: the same command resumes)."""
    from ray import exceptions

    try:
        return ray.get(ref)
    except exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, AssistantError):
            raise AssistantError(str(cause)) from None
        text = str(cause) if cause is not None else str(exc)
        first = (text.strip().splitlines() or [type(exc).__name__])[-1][:300]
        raise AssistantError(f"a cluster worker failed: {first}; run the same command again to resume") from None
    except (exceptions.RayActorError, exceptions.WorkerCrashedError, exceptions.ObjectLostError) as exc:
        raise AssistantError(f"cluster workers were lost ({type(exc).__name__}) more often than they are "
                             "restarted; run the same command again to resume") from None


def _append(uri: str, fragments_json: list[str]) -> None:
    import lance
    from lance.fragment import FragmentMetadata

    if not fragments_json:
        return
    fragments = [FragmentMetadata.from_json(text) for text in fragments_json]
    dataset = lance.dataset(uri)
    lance.LanceDataset.commit(uri, lance.LanceOperation.Append(fragments), read_version=dataset.version)


def commit_results(store: IndexStore, records: dict, results: list[ShardResult], uncertain: set) -> None:
    """Commit finished shards: passages, then their documents (the commit point), then the record.

    `uncertain`: (source, shard) pairs that an earlier run may have committed without recording it
    (killed between the two); their documents are deleted first, so nothing is there twice."""
    for result in results:
        records[result.source]["committing"].append(result.number)
    store.save_meta()
    with store.errors():
        again = [r for r in results if (r.source, r.number) in uncertain]
        if again:
            store.remove_documents([doc_id for r in again for doc_id in r.doc_ids])
        _append(store.passages.uri, [f for r in results for f in r.passage_fragments])
        _append(store.documents.uri, [f for r in results for f in r.document_fragments])
    for result in results:
        record = records[result.source]
        record["committing"].remove(result.number)
        record["done"].append(result.number)
        uncertain.discard((result.source, result.number))
    store.save_meta()
