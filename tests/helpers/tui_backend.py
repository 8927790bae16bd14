"""Fake-model backends for the TUI tests (no tests here; imported by test_tui_*.py).

Everything but the models is real: strategies, the runner's event stream, and for indexing
the real IndexStore and folder indexer with a tiny deterministic embedder.
"""
from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numpy as np
from helpers.fakes import FakeJudge, FakeReader, FakeRetriever

from assistant.context import RunContext
from assistant.events.core import Answer
from models.config import Settings
from tui.backend import Backend, IndexInfo, SourceInfo

TEXTS = {
    "heron": "Project Heron builds a solar-powered weather buoy. The project is led by the marine "
             "engineer Mira Okafor, who joined in 2021.",
    "otter": "Project Otter builds a river-cleaning robot; its lead is Tomas Lind.",
    "garden": "The community garden grows tomatoes, beans and pumpkins. Watering happens at dawn.",
    "trains": "The night train from Vienna to Rome leaves at nine in the evening.",
    "chess": "The chess club meets on Tuesdays in the library basement.",
    "recipes": "Pumpkin soup needs pumpkin, onion, stock and a little nutmeg.",
}
MULTI = "Who leads Heron and who leads Otter?"


def answer_for(prompt: str) -> str:
    if "<facts>" in prompt:
        return "Mira Okafor and Tomas Lind."
    if "Otter" in prompt.split("Question:")[-1]:
        return "Tomas Lind."
    return "Mira Okafor leads Project Heron."


def relevant(question: str, text: str) -> bool:
    if question == MULTI:
        return False  # forces decomposition
    return any(word in text for word in ("Heron", "Otter") if word in question)


class GatedReader(FakeReader):
    """Waits on `gate` before every token, so a test can act while an answer streams; like the
    real reader it hears a stop while it waits."""

    def __init__(self, gate: threading.Event | None, **kwargs):
        super().__init__(**kwargs)
        self.gate = gate
        self.gave_up_waiting = False
        self.call_ended = threading.Event()

    def stream(self, messages, max_tokens=128, **kwargs):
        self.call_ended.clear()
        try:
            for piece in super().stream(messages, max_tokens=max_tokens, **kwargs):
                if self.gate is not None and isinstance(piece, str):
                    self._wait_for_gate()
                yield piece
        finally:
            self.call_ended.set()

    def _wait_for_gate(self) -> None:
        for _ in range(200):
            if self.gate.wait(timeout=0.05):
                return
            self.check_stop()
        self.gave_up_waiting = True
        raise TimeoutError("test gate never opened")


class TinyEmbedder:
    """Deterministic 8-dimensional vectors; `gate` holds encode() until the test opens it."""

    model_id = "tiny-test-embedder"
    dim = 8

    def __init__(self, gate: threading.Event | None = None):
        self.gate = gate
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        if self.gate is not None and not self.gate.wait(timeout=10):
            raise TimeoutError("test gate never opened")
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8).astype(np.float32)
                for t in texts]
        return np.array([r / (np.linalg.norm(r) or 1.0) for r in rows], dtype=np.float32)


class AnswerAwareRetriever(FakeRetriever):
    """A search that names an answer (ReFeed's question + answer) also finds the last passage,
    so the check has one passage the answer did not read."""

    def search(self, query, k):
        self.queries.append(query)
        if any(name in query for name in ("Okafor", "Lind")):
            return self.passages[:k - 1] + self.passages[-1:]
        return self.passages[:k]


class FakeBackend(Backend):
    """The real Backend over fake models; `fixed_index` pins the index view for snapshots."""

    def __init__(self, tmp_path: Path, reader_gate=None, embed_gate=None, require_index=False,
                 fixed_index: IndexInfo | None = None, load_gate: threading.Event | None = None):
        self.reader_gate = reader_gate
        self.load_gate = load_gate  # holds "loading the models" until the test opens it
        self.embedder = TinyEmbedder(embed_gate)
        self.require_index = require_index
        self.fixed_index = fixed_index
        self.contexts: list[RunContext] = []
        super().__init__(context_factory=self._context, embedder_factory=lambda s: self.embedder,
                         settings=Settings(data_dir=tmp_path, k=5))  # the flows count 5 of the 6 fake passages

    def _context(self, settings: Settings, strategy) -> RunContext:
        if self.load_gate is not None and not self.load_gate.wait(timeout=10):
            raise TimeoutError("test load gate never opened")
        if self.require_index and strategy.needs_index:
            from index_builder.store import IndexStore

            IndexStore.open(settings.index_path)  # the real "no index" error
        retriever = AnswerAwareRetriever(TEXTS)
        for rank, passage in enumerate(retriever.passages):
            passage.score = round(0.05 - rank * 0.004, 4)
        judge = FakeJudge(relevant=relevant, decompose={MULTI: ["Who leads Heron?", "Who leads Otter?"]})
        ctx = RunContext(settings=settings, reader=GatedReader(self.reader_gate, answer=answer_for, prob=0.6),
                         judge=judge, retriever=retriever)
        self.contexts.append(ctx)
        return ctx

    def ask(self, question, spec, settings, should_stop=None, thread=None):
        for event in super().ask(question, spec, settings, should_stop, thread):
            if isinstance(event, Answer):
                event.seconds = 1.5  # snapshots must not depend on the clock
            yield event

    def index_info(self, settings):
        return self.fixed_index if self.fixed_index is not None else super().index_info(settings)

    pullable: list | None = None  # catalog readers to offer; None: the real catalog on a fixed machine

    def pullable_readers(self, settings):
        """What the settings offer to pull, the same on every machine (snapshots)."""
        if self.pullable is not None:
            return self.pullable
        from models.downloads.catalog import load_catalog
        from models.downloads.catalog_fit import ordered_for
        from models.machine import Machine

        return ordered_for(Machine(ram_gb=16, cores=8), [e for e in load_catalog() if e.is_reader])


SNAPSHOT_INDEX = IndexInfo(path=Path("/home/user/.local/share/offline-assistant/index"), exists=True,
                           embedding_model="all-MiniLM-L6-v2", sources=[
                               SourceInfo("/home/user/Documents/notes", "folder", 42, 1310),
                               SourceInfo("/home/user/projects/handbook", "folder", 7, 88)])
