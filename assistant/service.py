"""The one API under the command line, the app and evaluation: ask a question, list the models,
build and inspect the index (add a folder, a Wikipedia dump, a passage file or a dataset's
corpus; status; remove). Front ends only parse their input and render what comes back.

Every function takes the Settings to use; models come from models.registry unless a test passes
its own `embedder_factory` / `context_factory`.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

# Front ends take these from here, not from index_builder: names escaped for display, the
# suffixes of passage files, and the types of progress reports and stop checks.
from index_builder.names import safe_name
from index_builder.progress import PHASE_WORDS, Progress, ProgressCallback, StopCheck, clock_text  # noqa: F401
from index_builder.sources import PASSAGE_SUFFIXES as PASSAGE_FILE_SUFFIXES  # noqa: F401
from models.config import Settings
from models.errors import AssistantError

from .context import RunContext
from .events.core import Event
from .strategies import Strategy, make_strategy

if TYPE_CHECKING:  # the store's modules load pyarrow: not at import time
    from index_builder.store_status import IndexStatus, SourceStatus

EmbedderFactory = Callable[[Settings], object]
ContextFactory = Callable[[Settings, Strategy], RunContext]


def _registry_embedder(settings: Settings):
    from models import registry

    return registry.get_embedder(settings)


# -- questions ---------------------------------------------------------------------------

def prepare(settings: Settings, strategy: Strategy | str, context_factory: ContextFactory | None = None) -> RunContext:
    """The models (and index) the strategy needs, loaded; slow the first time in a process."""
    from .runner import build_context

    strategy = make_strategy(strategy) if isinstance(strategy, str) else strategy
    return (context_factory or build_context)(settings, strategy)


def ask(question: str, strategy: Strategy | str, settings: Settings, should_stop: StopCheck | None = None,
        context_factory: ContextFactory | None = None, answer_options=None) -> Iterator[Event]:
    """The question's events, the Answer last; models load on the first next(). A reader call
    stops part-way (models.errors.Interrupted) once should_stop() is true. answer_options (an
    assistant.answering.answer_options.AnswerOptions): the caller's length, stop, sampling and instructions
    for the answer."""
    from .runner import run_question

    strategy = make_strategy(strategy) if isinstance(strategy, str) else strategy
    ctx = prepare(settings, strategy, context_factory)
    ctx.answer_options = answer_options
    with ctx.reader.interruptible(should_stop):
        yield from run_question(question, strategy, ctx)


# -- models ------------------------------------------------------------------------------

def model_rows(settings: Settings) -> list[tuple[str, dict | str]]:
    """(role, row) for reader, embedder, judge and relevance: model, file, size, backend, device;
    the row is an error line when that model is missing."""
    from .services.model_rows import model_rows as rows

    return rows(settings)


# -- the index ---------------------------------------------------------------------------

@dataclass
class IndexWriter:
    """An open index with its write lock held and the embedder loaded: one run of additions."""

    settings: Settings
    store: object  # index_builder.store.IndexStore
    embedder: object

    def add(self, kind: str, path: Path, on_progress: ProgressCallback | None = None,
            should_stop: StopCheck | None = None, **options):
        """Index a source of this kind (again); returns its summary (`.line()` says it)."""
        from index_builder.indexers import INDEXERS

        return INDEXERS[kind](self.store, self.embedder, Path(path).expanduser(), on_progress=on_progress,
                              should_stop=should_stop, **options)

    def first_use_note(self) -> str:
        """One line when this run first makes the embedder's ONNX export on this machine."""
        if not getattr(self.embedder, "export_pending", False):
            return ""
        return (f"preparing the {self.embedder.backend} embedder for this machine: a one-time export "
                f"(tens of seconds), kept for every later run")

    def backend_note(self) -> str:
        """One line when the index was built with the other transformer backend, else ""."""
        from models.embedder_choice import backend_note

        return backend_note(self.store.meta.get("embedder_backend"), getattr(self.embedder, "backend", ""))

    def add_on_cluster(self, plan: list, address: str, on_progress: ProgressCallback | None = None,
                       should_stop: StopCheck | None = None):
        """Build the planned shards (`plan_cluster`) on a Ray cluster; this process commits them."""
        from index_builder.cluster import commands

        return commands.build(self.store, self.settings, plan, address, on_progress, should_stop)

    def watch_folder(self, folder: Path, should_stop: StopCheck, **options) -> Iterator:
        """A folder's summary each time something under it changes, until should_stop()."""
        from watchfiles import watch

        for _changes in watch(folder, stop_event=_StopEvent(should_stop), rust_timeout=500,
                              yield_on_timeout=False, raise_interrupt=False):
            yield self.add("folder", folder, should_stop=should_stop, **options)


class _StopEvent:
    """watchfiles polls is_set(); ours is a should_stop function."""

    def __init__(self, should_stop: StopCheck):
        self.should_stop = should_stop

    def is_set(self) -> bool:
        return self.should_stop()


@contextlib.contextmanager
def writing(settings: Settings, embedder_factory: EmbedderFactory | None = None,
            on_loaded: Callable[[], None] | None = None) -> Iterator[IndexWriter]:
    """The index opened (or created) for writing. The lock is taken before the embedder loads,
    so that a busy index is said at once. `on_loaded` is called once the embedder is loaded and
    before the store is opened or created: from there on the work writes, so a Ctrl-C must only
    ask it to stop (a KeyboardInterrupt while the tables were created gave a bare "interrupted")."""
    from index_builder import lock
    from index_builder.store import IndexStore

    with lock.write_lock(settings.index_path):
        embedder = (embedder_factory or _registry_embedder)(settings)
        if on_loaded is not None:
            on_loaded()
        with IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim,
                                       getattr(embedder, "backend", None)) as store:
            yield IndexWriter(settings, store, embedder)


def check_source(kind: str | None, path: Path, **options) -> tuple[str, Path]:
    """(kind, path) checked, with the indexer's options, before any model loads; kind "document":
    a folder or one document file; kind None: decided by the path (a folder, a .xml/.xml.bz2 dump or a .jsonl/.tsv passage file). A bad
    path is a BadInputError."""
    from index_builder.indexers import check, choose
    from index_builder.sources import check_folder_or_document

    if kind == "document":  # `index add`: a folder or one document file
        return check_folder_or_document(path)
    return choose(path) if kind is None else (kind, check(kind, path, **options))


def plan_cluster(kind: str, path: Path, address: str, limit: int | None = None) -> list:
    """The shards of a dump or passage file for a cluster build, checked (Ray installed, a sane
    address, a readable file) before any model loads; every bad input is one line."""
    from index_builder.cluster import commands

    return commands.plan(kind, Path(path).expanduser(), address, limit)


def add_source(settings: Settings, path: Path, kind: str | None = None,
               on_progress: ProgressCallback | None = None, should_stop: StopCheck | None = None,
               embedder_factory: EmbedderFactory | None = None, **options):
    """Index a folder, a Wikipedia dump or a passage file (again); returns its summary. Stops
    (resumably, models.errors.Cancelled) when should_stop says so."""
    kind, path = check_source(kind, path, **options)
    with writing(settings, embedder_factory) as writer:
        return writer.add(kind, path, on_progress=on_progress, should_stop=should_stop, **options)


def add_dataset(settings: Settings, dataset: Path, on_progress: ProgressCallback | None = None,
                embedder_factory: EmbedderFactory | None = None) -> tuple[Path, int]:
    """The pooled paragraph index of a dataset file, built on first use: (index path, passages)."""
    from index_builder.dataset_corpus import build_dataset_corpus

    embedder = (embedder_factory or _registry_embedder)(settings)
    return build_dataset_corpus(dataset, settings.data_dir, embedder, on_progress=on_progress)


def read_dataset(dataset: Path, limit: int | None = None):
    """A QA dataset file's usable questions (the first `limit`) and the records skipped, each with
    its reason (index_builder.datasets.DatasetFile): what `eval`, `judge distill` and
    `index dataset` read."""
    from index_builder.datasets import read_dataset as read

    return read(dataset, limit)


def open_retriever(settings: Settings, embedder_factory: EmbedderFactory | None = None):
    """Hybrid search over the index (NoIndex when there is none), for tools that search
    without a strategy (judge distillation)."""
    from index_builder.store import IndexStore

    from .retrieval.retriever import HybridRetriever

    store = IndexStore.open(settings.index_path)
    return HybridRetriever(store, (embedder_factory or _registry_embedder)(settings))


def check_index(path: Path) -> Path:
    """An existing index folder, resolved; NoIndex (or IndexDamaged) when it is not one."""
    from index_builder.store import IndexStore

    IndexStore.open(Path(path))
    return Path(path).resolve()


def index_exists(settings: Settings) -> bool:
    from index_builder.store import META_FILE

    return (settings.index_path / META_FILE).is_file()


def status(settings: Settings) -> IndexStatus:
    """Sources, documents, passages, size, embedding model and last update (IndexStore.status);
    a NoIndex when there is none."""
    from index_builder.store import IndexStore

    return IndexStore.open(settings.index_path).status()


def repair(settings: Settings) -> list[str]:
    """Rebuild what the index can rebuild from its tables (index_builder.health): a lost or
    unreadable metadata file, a missing or unreadable full-text or vector index, an interrupted
    run's leftovers (orphans removed, waiting passages marked for the next run); returns what was
    done ([] when nothing needed it). Damage it cannot mend: one line offering a rebuild."""
    from index_builder import health, lock
    from index_builder.store import IndexStore
    from models import registry
    from models.errors import IndexDamaged

    path = settings.index_path
    done = []
    if health.meta_problem(path):  # lost or unreadable: rebuilt from the tables
        embedder = registry.get_embedder(settings)
        with lock.write_lock(path):
            done.append(health.restore_meta(path, embedder.model_id, embedder.dim))
    try:
        IndexStore.open(path)  # no index, or damage beyond repair: said before taking the lock
        with lock.write_lock(path), IndexStore.open(path) as store:
            done += health.repair(store)
            left = health.problems(store)
    except IndexDamaged as exc:  # its message would offer this very repair
        raise health.beyond_repair(path, exc.what) from None
    if left:
        raise health.beyond_repair(path, "; ".join(left))
    return done


def remove(settings: Settings, given: str) -> tuple[str, int]:
    """Drop the source `given` names (as `status` lists it, or as a path): (its name, passages
    removed). An unknown source is an error listing the known ones."""
    from index_builder import lock
    from index_builder.store import IndexStore

    IndexStore.open(settings.index_path)  # no index, or a damaged one: said before taking the lock
    with lock.write_lock(settings.index_path), IndexStore.open(settings.index_path) as store:
        name = _source_named(store, given)
        if name is None:
            listed = ", ".join(safe_name(s) for s in store.meta.get("sources", {})) or "none"
            raise AssistantError(f"no source {safe_name(given)} in the index (sources: {listed})")
        return name, store.remove_source(name)


def _source_named(store, given: str) -> str | None:
    """The recorded source `given` names: as `status` lists it, or as a path (relative, with ~,
    or with bytes that are not UTF-8: sources are recorded under escaped names)."""
    from index_builder.folder import source_name

    candidates = [safe_name(given)]
    with contextlib.suppress(OSError, RuntimeError):  # a path that cannot be resolved names no source
        candidates.append(source_name(Path(given).expanduser().resolve()))
    return next((name for name in candidates if store.has_source(name)), None)


def rebuild_command(source: SourceStatus, index: Path | str | None = None) -> str:
    """The command that (re)builds a source, from its kind, with the options its interrupted run
    was given (its collection, size limit, article limit: index_builder/resume.py) and the index
    when it is not the default one, so that it resumes exactly what was asked."""
    import shlex

    from index_builder.resume import resume_arguments

    where = f" --index {shlex.quote(safe_name(str(index)))}" if index is not None else ""
    if source.kind == "dataset":
        return (f"assistant index dataset "
                f"{shlex.quote(safe_name(source.file or source.name.removeprefix('dataset:')))}{where}")
    command = {"wikipedia": "wikipedia", "passages": "passages"}.get(source.kind, "add")
    cluster = " --cluster ADDRESS" if source.cluster else ""  # begun on a Ray cluster
    options = "".join(f" {shlex.quote(arg)}" for arg in resume_arguments(source.recorded))
    return f"assistant index {command} {shlex.quote(safe_name(source.name))}{options}{cluster}{where}"
