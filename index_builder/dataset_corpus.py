"""The pooled paragraph corpus of a QA dataset file (HotpotQA, MuSiQue, 2Wiki ...).

All paragraphs of all questions of the file, deduplicated, become one source of one index, one
passage per paragraph with its title, so retrieval is a real search over thousands of passages
rather than an oracle over one question's own paragraphs. The index lives under the data dir,
keyed by the file's name and content hash; a re-run reuses it, an interrupted build resumes.
How a dataset file is read: datasets.py.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from models.errors import AssistantError

from .chunking import Chunk
from .datasets import load_dataset
from .documents import Document, content_hash
from .names import safe_name
from .pipeline import write_documents
from .progress import Progress, ProgressCallback, StopCheck
from .store import IndexStore

SOURCE_PREFIX = "dataset:"


@dataclass(frozen=True)
class PooledParagraph:
    title: str
    text: str

    @property
    def key(self) -> str:
        """Identity for deduplication: title and whitespace-normalised text."""
        text = " ".join(self.text.split())
        return hashlib.sha1(f"{self.title.strip()}\0{text}".encode("utf-8")).hexdigest()[:16]


def pooled_paragraphs(examples: Iterable) -> list[PooledParagraph]:
    """Paragraphs of all examples, first occurrence kept, empty ones dropped."""
    seen: set[str] = set()
    pooled: list[PooledParagraph] = []
    for example in examples:
        for p in example.paragraphs:
            if not p.text.strip():
                continue
            para = PooledParagraph(p.title.strip(), " ".join(p.text.split()))
            if para.key not in seen:
                seen.add(para.key)
                pooled.append(para)
    return pooled


def _document(source: str, para: PooledParagraph) -> Document:
    # The path carries the key: many paragraphs share a title across questions.
    return Document(source=source, path=f"{para.title} #{para.key}", title=para.title,
                    chunks=[Chunk(text=para.text)], content_hash=para.key, size=len(para.text))


def index_pooled(paragraphs: list[PooledParagraph], path: Path, source: str, shown_file: str, embedder,
                 on_progress: ProgressCallback | None = None, should_stop: StopCheck | None = None) -> int:
    """Index pooled paragraphs as one source of the index at `path` (reused when complete,
    resumed when interrupted); returns the number of passages. `shown_file` is only shown: the
    command that rebuilds the source names it."""
    with IndexStore.open_or_create(path, embedder.model_id, embedder.dim) as store:
        info = store.meta.get("sources", {}).get(source, {})
        if info.get("complete") and info.get("passages") == len(paragraphs):
            return len(paragraphs)
        store.begin_source(source, "dataset", file=shown_file)
        store.remove_orphan_passages()
        known = set(store.documents_of(source))
        progress = Progress(total_files=len(paragraphs), files_done=len(known))

        def missing() -> Iterator[Document]:
            for para in paragraphs:
                doc = _document(source, para)
                if doc.path in known:
                    continue
                progress.files_done += 1
                yield doc

        write_documents(store, embedder, missing(), progress, on_progress, should_stop)
        store.meta.setdefault("sources", {})[source] = {"kind": "dataset", "file": shown_file,
                                                        "passages": len(paragraphs), "complete": True}
        store.finish()
    return len(paragraphs)


def corpus_path(data_dir: Path, dataset: Path) -> Path:
    """Where the corpus index of a dataset file lives: <data_dir>/datasets/<stem>-<hash>."""
    digest = content_hash(Path(dataset).read_bytes())[:10]
    stem = re.sub(r"[^\w.-]+", "_", Path(dataset).stem)[:60]
    return Path(data_dir) / "datasets" / f"{stem}-{digest}"


def build_dataset_corpus(dataset: Path, data_dir: Path, embedder,
                         on_progress: ProgressCallback | None = None,
                         should_stop: StopCheck | None = None) -> tuple[Path, int]:
    """Build (or reuse) the corpus index of a dataset file; returns (index path, passages)."""
    dataset = Path(dataset)
    paragraphs = pooled_paragraphs(load_dataset(dataset))
    if not paragraphs:
        raise AssistantError(f"{safe_name(dataset.name)} carries no paragraphs to index; evaluate it "
                             "closed-book (--corpus none) or name an index (--corpus INDEX)")
    path = corpus_path(data_dir, dataset)
    source = SOURCE_PREFIX + safe_name(dataset.name)  # a name that is not UTF-8 is stored escaped
    shown_file = safe_name(str(dataset.resolve()))
    return path, index_pooled(paragraphs, path, source, shown_file, embedder, on_progress, should_stop)
