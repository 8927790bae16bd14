"""What the app needs from the assistant, in one object that tests can build with fake models.

The app never loads models or touches the index itself: it calls these methods from worker
threads. `Backend()` is the real thing; tests pass `context_factory` / `embedder_factory`
built on tests/fakes.py so every code path except the models is the real one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from models.config import Settings, load_settings
from models.errors import AssistantError

from assistant.context import RunContext
from assistant.events import Event

ProgressCallback = Callable[[object], None]  # receives index_builder.pipeline.Progress
StopCheck = Callable[[], bool]
PASSAGE_FILE_SUFFIXES = (".jsonl", ".json", ".tsv")


@dataclass
class SourceInfo:
    source: str
    kind: str
    documents: int
    passages: int


@dataclass
class IndexInfo:
    path: Path
    exists: bool
    embedding_model: str = ""
    sources: list[SourceInfo] = field(default_factory=list)

    @property
    def documents(self) -> int:
        return sum(s.documents for s in self.sources)

    @property
    def passages(self) -> int:
        return sum(s.passages for s in self.sources)


def _real_context(settings: Settings, strategy) -> RunContext:
    from assistant.runner import build_context

    return build_context(settings, strategy)


def _real_embedder(settings: Settings):
    from models import registry

    return registry.get_embedder(settings)


class Backend:
    def __init__(self, context_factory: Callable[[Settings, object], RunContext] | None = None,
                 embedder_factory: Callable[[Settings], object] | None = None,
                 settings: Settings | None = None):
        self.context_factory = context_factory or _real_context
        self.embedder_factory = embedder_factory or _real_embedder
        self._settings = settings

    # -- settings and strategies ---------------------------------------------------------
    def initial_settings(self) -> Settings:
        return self._settings if self._settings is not None else load_settings()

    @staticmethod
    def strategy_names() -> list[str]:
        from assistant.strategies import STRATEGIES

        return sorted(STRATEGIES)

    @staticmethod
    def make_strategy(spec: str):
        """The strategy for a spec like "ra-isf:relevance=false"; ConfigError when it is wrong."""
        from assistant.strategies import make_strategy

        return make_strategy(spec)

    @staticmethod
    def check_reader(path: str) -> None:
        """A ModelError now rather than at the next question when a reader path is wrong."""
        from models.registry import check_gguf

        check_gguf(Path(path).expanduser())

    # -- questions -----------------------------------------------------------------------
    def prepare(self, settings: Settings, spec: str) -> RunContext:
        """Load the models (and open the index) the strategy needs; slow the first time."""
        return self.context_factory(settings, self.make_strategy(spec))

    def ask(self, question: str, spec: str, settings: Settings,
            should_stop: StopCheck | None = None) -> Iterator[Event]:
        """The question's events, models loaded on the first next(); stop by not iterating, or
        mid-call: the reader raises models.errors.Interrupted once should_stop() is true."""
        from assistant.runner import run_question

        strategy = self.make_strategy(spec)
        ctx = self.context_factory(settings, strategy)
        with ctx.reader.interruptible(should_stop):
            yield from run_question(question, strategy, ctx)

    # -- the index -----------------------------------------------------------------------
    def index_info(self, settings: Settings) -> IndexInfo:
        from index_builder.store import META_FILE, IndexStore

        path = settings.index_path
        if not (path / META_FILE).is_file():
            return IndexInfo(path=path, exists=False)
        store = IndexStore.open(path)
        kinds = {name: (info or {}).get("kind", "") + (" (incomplete)" if (info or {}).get("incomplete") else "")
                 for name, info in store.meta.get("sources", {}).items()}
        table = store.documents.to_arrow()
        counts: dict[str, list[int]] = {}
        for source, passages in zip(table["source"].to_pylist(), table["passages"].to_pylist()):
            entry = counts.setdefault(source, [0, 0])
            entry[0] += 1
            entry[1] += passages or 0
        names = list(dict.fromkeys([*kinds, *counts]))
        sources = [SourceInfo(n, kinds.get(n, ""), *counts.get(n, [0, 0])) for n in names]
        return IndexInfo(path=path, exists=True, embedding_model=store.meta.get("embedding_model", ""),
                         sources=sorted(sources, key=lambda s: s.source))

    def add_source(self, settings: Settings, path: Path, on_progress: ProgressCallback | None = None,
                   should_stop: StopCheck | None = None) -> str:
        """Index a folder, a Wikipedia dump or a passage file (again); returns the summary line.

        Which one is decided by the path, as `assistant index add/wikipedia/passages` would;
        cancelled (index_builder.pipeline.Cancelled) when should_stop says so.
        """
        from index_builder.store import IndexStore

        path = Path(path).expanduser()
        index = self._indexer_for(path)  # a bad path is reported before the embedder loads
        embedder = self.embedder_factory(settings)
        with IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim) as store:
            return index(store, embedder, path, on_progress=on_progress, should_stop=should_stop).line()

    @staticmethod
    def _indexer_for(path: Path):
        if not path.exists():
            raise AssistantError(f"no such folder or file: {path}")
        if path.is_dir():
            from index_builder.folder import index_folder

            return index_folder
        suffixes = [s.lower() for s in path.suffixes[-2:]]
        if suffixes[-1:] == [".xml"] or suffixes == [".xml", ".bz2"]:
            from index_builder.wikipedia import index_wikipedia

            return index_wikipedia
        if suffixes[-1:] and suffixes[-1] in PASSAGE_FILE_SUFFIXES:
            from index_builder.passages import index_passages

            return index_passages
        raise AssistantError(f"{path.name}: add a folder, a Wikipedia dump (.xml, .xml.bz2) or a passage "
                             "file (.jsonl, .tsv)")

    def remove_source(self, settings: Settings, source: str) -> None:
        from index_builder.store import IndexStore

        store = IndexStore.open(settings.index_path)
        if hasattr(store, "remove_source"):  # the indexer's own API
            store.remove_source(source)
            store.save_meta()
            return
        store.remove_documents([record.doc_id for record in store.documents_of(source).values()])
        store.meta.get("sources", {}).pop(source, None)
        store.finish()
        store.save_meta()
