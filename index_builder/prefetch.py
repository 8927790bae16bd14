"""Documents read, extracted and chunked on a producer thread while the pipeline embeds.

Embedding takes one thread's worth of the GIL-free work (onnxruntime, the model2vec table,
Lance writes), and reading, hashing, extracting and chunking the next files takes another:
overlapped, a folder indexes at the embedder's speed instead of the sum of both. The producer
runs at most DEPTH documents ahead, and stops (at its next document) when the consumer does.
"""
from __future__ import annotations

import queue
import threading
from typing import Iterable, Iterator

from .chunking import Chunk
from .documents import Document

DEPTH = 32  # documents made ahead: a few batches' worth of small files, bounded memory for large ones
_POLL = 0.1

_END = object()


class _Failed:
    def __init__(self, error: BaseException):
        self.error = error


def with_passages(documents: Iterable[Document], depth: int = DEPTH) -> Iterator[tuple[Document, list[Chunk]]]:
    """(document, its passages) for each document, made on a producer thread.

    An error in the producer is raised here, in the consumer, at the point it happened in the
    sequence. Leaving the loop early (an exception, a stop) ends the producer before returning.
    """
    handoff: queue.Queue = queue.Queue(maxsize=depth)
    stopped = threading.Event()

    def put(item) -> bool:
        while not stopped.is_set():
            try:
                handoff.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for doc in documents:
                if stopped.is_set() or not put((doc, list(doc.passages()))):
                    return
            put(_END)
        except BaseException as exc:  # handed over: the consumer raises it as its own
            put(_Failed(exc))

    producer = threading.Thread(target=produce, name="index-prefetch", daemon=True)
    producer.start()
    try:
        while True:
            item = handoff.get()
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item
    finally:
        stopped.set()
        producer.join()
