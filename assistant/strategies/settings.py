"""The research methods' tuned limits (assistant/tuning.py: each with its bound, why and reader).

Their options (what a spec may change: drafts, window, depth...) are declared beside each strategy;
these are the values a spec does not change: sampling as the papers did it, and how many tokens a
reader call that writes a query, a note or a ranking may take.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..tuning import SettingsGroup, setting


@dataclass(frozen=True)
class MethodSettings(SettingsGroup):
    sample_temperature: float = setting(0.7, bound=(0.0, 2.0), why="ReFeed's and LLMQA's sampled drafts and notes: "
                                        "the ReFeed paper's temperature")
    sample_top_p: float = setting(0.9, bound=(0.0, 1.0), why="nucleus sampling's top-p for the same: the ReFeed "
                                  "paper's")
    max_drafts: int = setting(20, bound=(1, 100), why="the most drafts ReFeed may take (`refeed:drafts`, "
                              "`ask --drafts`): each is a reader call")
    expansion_tokens: int = setting(100, bound=(16, 1024), why="LLMQA: the length of a background note (2-3 "
                                    "sentences, as its prompt asks)")
    rank_tokens_per_passage: int = setting(6, bound=(1, 32), why="LLMQA: tokens a listwise ranking reply may take "
                                           "per passage of the window (\"[3] > \"), plus rank_tokens_extra")
    rank_tokens_extra: int = setting(8, bound=(0, 64), why="LLMQA: tokens a ranking reply may take beyond its "
                                     "passages' marks")
    reply_shown_chars: int = setting(200, bound=(20, 2000), why="LLMQA: the part of each ranking reply a step keeps")
    query_tokens: int = setting(40, bound=(8, 256), why="RQ-RAG: the length of one refined search query")
    query_chars: int = setting(300, bound=(20, 2000), why="RQ-RAG: a refined query is cut to this many characters")
    shortest_query: int = setting(3, bound=(1, 20), why="RQ-RAG: a reply line shorter than this is no query (the "
                                  "question is searched instead)")


METHODS = MethodSettings()
