"""The pooled paragraph corpus of a QA dataset file (HotpotQA, MuSiQue, 2Wiki ...).

All paragraphs of all questions of the file, deduplicated, become one index, so retrieval is a
real search over thousands of passages rather than an oracle over one question's own
paragraphs. The index lives under the data dir, keyed by the file's name and content hash; a
re-run reuses it, an interrupted build resumes (index_builder.dataset_corpus does the indexing).
"""
from __future__ import annotations

import re
from pathlib import Path

from index_builder.dataset_corpus import index_pooled, pooled_paragraphs
from index_builder.documents import content_hash
from index_builder.names import safe_name
from index_builder.progress import ProgressCallback, StopCheck
from models.errors import AssistantError

from .datasets import load_dataset

SOURCE_PREFIX = "dataset:"


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
