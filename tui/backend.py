"""What the app needs from the assistant, in one object that tests can build with fake models.

The app never loads models or touches the index itself: it calls these methods from worker
threads, and they call assistant.service, as the command line does. `Backend()` is the real
thing; tests pass `context_factory` / `embedder_factory` built on tests/fakes.py so every code
path except the models is the real one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from models.config import Settings, load_settings

from assistant import service
from assistant.context import RunContext
from assistant.events.core import Event
from assistant.service import ProgressCallback, StopCheck


@dataclass
class SourceInfo:
    source: str
    kind: str
    documents: int
    passages: int
    collections: list[str] = field(default_factory=list)  # the named ones it is in (none: default)
    resume_collection: str | None = None  # an interrupted run's collection: Ctrl+R resumes into it


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


class Backend:
    def __init__(self, context_factory: Callable[[Settings, object], RunContext] | None = None,
                 embedder_factory: Callable[[Settings], object] | None = None,
                 settings: Settings | None = None):
        self.context_factory = context_factory  # None: the real models (assistant.runner)
        self.embedder_factory = embedder_factory  # None: the real embedder (models.registry)
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
        """The strategy for a spec like "ra-isf:relevance=false"; OptionError when it is wrong."""
        from assistant.strategies import make_strategy

        return make_strategy(spec)

    @staticmethod
    def check_reader(path: str) -> None:
        """A ModelError now rather than at the next question when a reader path is wrong."""
        from models.registry import check_gguf

        check_gguf(Path(path).expanduser())

    # -- getting a reader ----------------------------------------------------------------
    @staticmethod
    def pullable_readers(settings: Settings) -> list:
        """The catalog readers not installed yet, ordered for this machine (catalog_fit.Placed)."""
        from assistant.services.pull import pullable_readers

        return pullable_readers(settings)

    @staticmethod
    def pull_reader(settings: Settings, entry, on_progress=None, should_stop: StopCheck | None = None):
        """Download a catalog reader as `models pull` does; models.errors.Cancelled when stopped."""
        from assistant.services.pull import pull

        return pull(settings, entry, on_progress=on_progress, should_stop=should_stop)

    # -- questions -----------------------------------------------------------------------
    def prepare(self, settings: Settings, spec: str) -> RunContext:
        """Load the models (and open the index) the strategy needs; slow the first time."""
        return service.prepare(settings, spec, self.context_factory)

    def ask(self, question: str, spec: str, settings: Settings,
            should_stop: StopCheck | None = None, thread: str | None = None) -> Iterator[Event]:
        """The question's events, models loaded on the first next(); stop by not iterating, or
        mid-call: the reader raises models.errors.Interrupted once should_stop() is true. In a
        thread, a follow-up is rewritten from its earlier turns, and the turn is saved."""
        if thread:
            from assistant.conversation import chat as chat_service

            return chat_service.ask(question, spec, settings, thread=thread, should_stop=should_stop,
                                    context_factory=self.context_factory)
        return service.ask(question, spec, settings, should_stop, self.context_factory)

    @staticmethod
    def thread(settings: Settings, name: str, whole: bool = False):
        """The saved thread (an empty one when new): its newest turns, or all of them (`whole`, to
        export); a bad name or a damaged file is an AssistantError."""
        from assistant.conversation import chat as chat_service

        return chat_service.threads(settings).load(name, create=True, whole=whole)

    @staticmethod
    def thread_list(settings: Settings) -> list:
        """The saved threads, the most recent first, with their turn counts (a damaged file still
        listed, as damaged; a huge one counted without being read whole)."""
        from assistant.conversation import chat as chat_service

        from .threads_screen import SavedThread

        return [SavedThread(s.name, s.turns, s.first_question, damaged=bool(s.damaged))
                for s in chat_service.thread_list(settings)]

    @staticmethod
    def new_thread_name(settings: Settings, question: str) -> str:
        """A name for a new thread, taken from its first question and not yet used."""
        from assistant.conversation import chat as chat_service
        from assistant.conversation.threads import name_from_question

        return name_from_question(question, chat_service.threads(settings).names())

    # -- the index -----------------------------------------------------------------------
    def index_info(self, settings: Settings) -> IndexInfo:
        if not service.index_exists(settings):
            return IndexInfo(path=settings.index_path, exists=False)
        info = service.status(settings)
        sources = [SourceInfo(source.name, source.kind + (" (incomplete)" if source.incomplete else "")
                              + _in_collections(source.recorded), source.documents, source.passages,
                              _named_collections(source.recorded), _resume_collection(source))
                   for source in info.sources]
        return IndexInfo(path=settings.index_path, exists=True, embedding_model=info.embedding_model or "",
                         sources=sorted(sources, key=lambda s: s.source))

    def add_source(self, settings: Settings, path: Path, on_progress: ProgressCallback | None = None,
                   should_stop: StopCheck | None = None, collection: str | None = None) -> str:
        """Index a folder, a Wikipedia dump or a passage file (again); returns the summary line.

        Which one is decided by the path, as `assistant index add/wikipedia/passages` would; with
        a collection, a folder or one document file into it, as `index add PATH --collection NAME`;
        cancelled (models.errors.Cancelled) when should_stop says so.
        """
        if collection:
            from assistant.services.collections import check_name

            return service.add_source(settings, path, kind="document", on_progress=on_progress,
                                      should_stop=should_stop, embedder_factory=self.embedder_factory,
                                      collection=check_name(collection)).line()
        return service.add_source(settings, path, on_progress=on_progress, should_stop=should_stop,
                                  embedder_factory=self.embedder_factory).line()

    @staticmethod
    def collections(settings: Settings) -> list:
        """The index's collections with their sizes (name, sources, documents, passages, bytes);
        none when there is no index yet."""
        from assistant.services.collections import list_collections
        from models.errors import AssistantError

        try:
            return list_collections(settings)
        except AssistantError:
            return []

    def remove_source(self, settings: Settings, source: str) -> None:
        service.remove(settings, source)


def _named_collections(recorded) -> list[str]:
    return [n for n in (recorded.get("collections") or []) if n != "default"]


def _resume_collection(source) -> str | None:
    """The collection an interrupted add was adding the source to, as `index status` names it."""
    resume = source.recorded.get("resume") if source.incomplete else None
    name = resume.get("collection") if isinstance(resume, dict) else None
    return name if isinstance(name, str) else None


def _in_collections(recorded) -> str:
    """", in work" for a source of a named collection ("" for the default one)."""
    names = _named_collections(recorded)
    return f", in {', '.join(names)}" if names else ""
