"""Small pure pieces of the spine: chunking, fusion, verdicts, decomposition parsing, settings."""
import math

import pytest

from assistant.retrieval.retriever import fts_query, fuse
from assistant.strategies import make_strategy, parse_spec
from assistant.answering.generate import clean_answer
from index_builder.chunking import Section, chunk_sections, markdown_sections
from models.config import Settings, load_settings
from models.errors import ConfigError
from models.judges.judge import parse_sub_questions, two_label_verdict


def test_markdown_sections_keep_heading_paths_and_title():
    title, sections = markdown_sections("# Guide\nintro\n## Install\n### Linux\napt it\n## Use\nrun it\n")
    assert title == "Guide"
    assert [(s.heading, s.text) for s in sections] == [("", "intro"), ("Install > Linux", "apt it"),
                                                       ("Use", "run it")]


def test_chunks_are_about_100_words_and_never_cross_sections():
    body = "\n\n".join(" ".join(f"w{p}_{i}" for i in range(45)) for p in range(9))
    chunks = chunk_sections([Section("A", body), Section("B", "short tail here")])
    a_chunks = [c for c in chunks if c.section == "A"]
    assert all(60 <= len(c.text.split()) <= 135 for c in a_chunks[:-1])
    assert 25 <= len(a_chunks[-1].text.split()) <= 135
    assert sum(len(c.text.split()) for c in a_chunks) == 405  # nothing lost or duplicated
    assert chunks[-1].section == "B" and chunks[-1].text == "short tail here"


def test_overlong_paragraph_is_split():
    chunks = chunk_sections([Section("", " ".join(["word"] * 1000))])
    assert len(chunks) >= 6 and max(len(c.text.split()) for c in chunks) <= 150


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = fuse([["a", "b", "c"], ["c", "a", "d"]], k=3)
    assert [pid for pid, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)


def test_fts_query_drops_syntax():
    assert fts_query('Who is "Mira" (Okafor)? AND-OR') == "Who is Mira Okafor AND OR"


def test_two_label_verdict_normalises_and_thresholds():
    v = two_label_verdict(math.log(0.3), math.log(0.1))
    assert v.yes and v.score == pytest.approx(0.75)
    assert not two_label_verdict(math.log(0.3), math.log(0.1), threshold=0.8).yes


@pytest.mark.parametrize("text, expected", [
    ('["Who directed Jaws?", "Where was he born?"]', ["Who directed Jaws?", "Where was he born?"]),
    ("1. Who directed Jaws?\n2. Where was he born?", ["Who directed Jaws?", "Where was he born?"]),
    ('["Who directed Jaws?"]', []),  # one item is no decomposition
    ("I cannot split this question.", []),
    ('["Where was the director of Jaws born?", "Who directed Jaws?", "Who directed Jaws?"]', []),
])
def test_decomposition_is_parsed_strictly(text, expected):
    assert parse_sub_questions(text, "Where was the director of Jaws born?") == expected


def test_strategy_specs_and_options():
    assert parse_spec("ra-isf:relevance=false, depth=2") == ("ra-isf", {"relevance": "false", "depth": "2"})
    strategy = make_strategy("ra-isf:self-knowledge=off")
    assert strategy.opts.self_knowledge is False and strategy.opts.relevance is True
    with pytest.raises(ConfigError, match="no option"):
        make_strategy("rag:depth=2")
    with pytest.raises(ConfigError, match="unknown strategy"):
        make_strategy("nope")


@pytest.mark.parametrize("raw, expected", [
    ("Answer: Mira Okafor\nShe leads it.", "Mira Okafor"),
    ("The answer is: Terry Richardson.", "Terry Richardson."),
    ("The answer to this question is 2012.", "2012."),
    ("final answer - yes", "yes"),
    ("The answer is\nParis", "Paris"),
    ("Answering machines came in 1898.", "Answering machines came in 1898."),
    ("The answered prayer", "The answered prayer"),
])
def test_clean_answer_takes_first_line_without_label_or_frame(raw, expected):
    assert clean_answer(raw) == expected


def test_settings_layering(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('k = 7\nreader = "/models/a.gguf"\n')
    monkeypatch.setenv("ASSISTANT_CONFIG", str(config))
    monkeypatch.setenv("ASSISTANT_DEPTH", "2")
    settings = load_settings(k=None, index=str(tmp_path / "ix"))
    assert (settings.k, settings.depth, str(settings.reader)) == (7, 2, "/models/a.gguf")
    assert settings.index_path == tmp_path / "ix"
    with pytest.raises(ConfigError, match='k = "many" is not a whole number'):
        Settings().with_overrides(k="many")
    config.write_text("k = = 1")
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_settings()


def test_reader_judge_knows_only_confident_closed_book_answers():
    from models.judges.prompted import KNOWS_THRESHOLD, ReaderJudge

    from helpers.fakes import FakeReader

    def judge(prob, text="Paris"):
        reader = FakeReader(lambda prompt: text, prob=prob)
        verdict = ReaderJudge(reader).knows("What is the capital of France?")
        assert reader.stats.calls == 1 and "capital of France" in reader.prompts[0][-1]["content"]
        return verdict

    sure = judge(0.97)
    assert sure.yes and sure.score == pytest.approx(0.97)
    unsure = judge(KNOWS_THRESHOLD - 0.05)
    assert not unsure.yes and unsure.score == pytest.approx(KNOWS_THRESHOLD - 0.05)
    assert not judge(0.99, text="   ").yes  # no answer at all is not knowing


def test_human_size():
    from assistant.sizes import human_size

    assert [human_size(n) for n in (0, 1023, 1024, 1536, 5 * 2**20, 3 * 2**30)] == [
        "0 B", "1023 B", "1.0 KB", "1.5 KB", "5.0 MB", "3.0 GB"]
