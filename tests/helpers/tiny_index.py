"""A real index build to interrupt: a folder of 2,400 one-passage files, a tiny random BERT embedder
with MiniLM's tokenizer (builds in seconds), the CLI command that indexes it and the ids a clean
build gives. Shared by the kill/Ctrl-C tests (test_index_resume.py, test_ctrl_c.py)."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from index_builder.documents import document_id, passage_id
from index_builder.store import IndexStore

FILES = 2400  # one short passage each: ~10 batches of 256, enough to interrupt twice
TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


@pytest.fixture(scope="module")
def tiny_embedder(tmp_path_factory) -> Path:
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel

    from models.registry import bundled_embedder_path

    minilm = bundled_embedder_path()
    root = tmp_path_factory.mktemp("tiny-embedder")
    bert = root / "bert"
    BertModel(BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64)).save_pretrained(bert)
    for name in TOKENIZER_FILES:
        if (minilm / name).is_file():
            shutil.copy(minilm / name, bert / name)
    transformer = models.Transformer(str(bert), max_seq_length=128)
    model = SentenceTransformer(modules=[transformer, models.Pooling(32)], device="cpu")
    model.save(str(root / "tiny-embedder"))
    return root / "tiny-embedder"


def make_folder(folder: Path) -> None:
    words = "river otter heron beaver reed marsh willow stone current meadow".split()
    for i in range(FILES):
        body = " ".join(words[(i * 7 + j) % len(words)] for j in range(25))
        (folder / f"d{i // 100:02d}").mkdir(parents=True, exist_ok=True)
        (folder / f"d{i // 100:02d}" / f"note{i:04d}.txt").write_text(f"Note {i}. {body}.\n")


def clean_build_ids(folder: Path) -> list[str]:
    """The ids an uninterrupted build gives: one passage per file, id from source and path."""
    source = str(folder.resolve())
    return sorted(passage_id(document_id(source, p.relative_to(folder).as_posix()), 0)
                  for p in folder.rglob("*.txt"))


def index_cmd(folder: Path, data: Path, embedder: Path):
    env = dict(os.environ, ASSISTANT_DATA_DIR=str(data), ASSISTANT_CONFIG=os.devnull,
               ASSISTANT_EMBEDDER=str(embedder), HF_HUB_OFFLINE="1")
    return [sys.executable, "-m", "assistant", "index", "add", str(folder)], env


def passage_ids(data: Path) -> list[str]:
    store = IndexStore.open(data / "index")
    return sorted(store.passages.to_arrow()["id"].to_pylist())
