"""Retrieval's tuned values (assistant/tuning.py): the hybrid search (retriever.py), the features the
trained pool selector and chain scorer read (pool_features.py, chain_select.py, pool_select.py),
and the folder's file lists (index_files.py)."""
from __future__ import annotations

from dataclasses import dataclass

from ..tuning import SettingsGroup, setting

_SPEED = "benchmarks/bench_query.py; EVALUATION.md and lab/notes/history.md, 'Query speed at 10^6 rows'"


@dataclass(frozen=True)
class SearchSettings(SettingsGroup):
    """The hybrid search: vector and full text fused by reciprocal rank (retriever.py)."""

    rrf_k: int = setting(60, bound=(1, 1000), why="the usual reciprocal-rank-fusion constant")
    candidates: int = setting(30, bound=(1, 1000), why=(
        "results each of the vector and full-text searches gives the fusion"))
    word_count_cap: int = setting(50, bound=(1, 10000), why=(
        "passages holding a word are counted up to this: enough to tell a rare word in these files"))
    hnsw_ef: int = setting(150, bound=(10, 10000), why=(
        f"HNSW-SQ graph candidates: with a 2x exact re-rank it finds nearly all of the exact top 10 in a few "
        f"milliseconds ({_SPEED})"))
    hnsw_refine_factor: int = setting(2, bound=(1, 100), why=(
        f"HNSW-SQ: candidates re-ranked by exact distance per row wanted; int8 distances alone miss more ({_SPEED})"))
    pq_nprobes: int = setting(128, bound=(1, 100000), why=(
        f"IVF-PQ (indexes built before HNSW-SQ): partitions probed; PQ distances alone are too coarse ({_SPEED})"))
    pq_refine_factor: int = setting(10, bound=(1, 100), why=f"IVF-PQ: candidates re-ranked per row wanted ({_SPEED})")
    score_digits: int = setting(6, bound=(1, 17), why="digits a fused score keeps on its passage")


@dataclass(frozen=True)
class PoolSettings(SettingsGroup):
    """The features of the trained pool selector and chain scorer (pool_features.py, chain_select.py)
    and the search's own order of the pool (pool_select.py); the trained models read features made with
    these values, so changing one means training them again (assistant judge train-selector)."""

    min_title_chars: int = setting(3, bound=(1, 50), why=(
        "a shorter title is not looked for in other text (a two-letter title is found everywhere)"))
    top_others: int = setting(3, bound=(1, 50), why=(
        "a passage named by (or naming) any of this many best other passages: a feature of the selector"))
    hop_cap: int = setting(3, bound=(1, 20), why=(
        "the chain's hop feature counts passages kept up to this (0, 1, 2, 3+)"))
    expansion_offset: float = setting(100.0, bound=(1.0, 1e6), why=(
        "in the search's own order each expansion search's finds come after the earlier searches' "
        "(their ranks stay below this)"))


@dataclass(frozen=True)
class IndexFilesSettings(SettingsGroup):
    """The folder's files as an answer lists them (index_files.py)."""

    max_matches: int = setting(20_000, bound=(100, 10_000_000), why=(
        "passages read for one topic: more is a word too common to list files by"))
    max_listed: int = setting(20, bound=(1, 1000), why="files named in an answer; the rest are counted")


SEARCH = SearchSettings()
POOL = PoolSettings()
INDEX_FILES = IndexFilesSettings()
