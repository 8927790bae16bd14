"""Exact citations: the answer cites, among the passages the reader was given for it, only those
it rests on, with [n] markers matching the source list (assistant/grounding/citations.py)."""
from __future__ import annotations

import json

from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context
from typer.testing import CliRunner

from assistant.grounding.citations import attribute, key_tokens
from assistant.events.core import Answer, Passage
from assistant.runner import run_question

TEXTS = {
    "heron": "Project Heron builds a solar-powered weather buoy. The project is led by the marine engineer "
             "Mira Okafor, who joined in 2021.",
    "otter": "Project Otter builds a river-cleaning robot; its lead is Tomas Lind.",
    "room": "The meeting room on the third floor is called Lighthouse.",
    "recipes": "Pumpkin soup needs pumpkin, onion, stock and a little nutmeg.",
}


def given(*ids: str) -> list[Passage]:
    return [Passage(id=i, text=TEXTS[i], path=f"docs/{i}.txt") for i in ids]


def test_the_passage_holding_the_answer_is_cited_and_the_others_are_not():
    cited = attribute("Lighthouse.", "What is the meeting room on the third floor called?",
                      given("recipes", "heron", "room"))
    assert [p.id for p in cited.cited] == ["room"] and cited.marked_text == "Lighthouse. [1]"


def test_key_tokens_drop_what_the_question_already_says():
    assert key_tokens("Mira Okafor leads Project Heron.", "Who leads Project Heron?") == ["mira", "okafor"]
    cited = attribute("Mira Okafor leads Project Heron.", "Who leads Project Heron?", given("otter", "heron"))
    assert [p.id for p in cited.cited] == ["heron"]  # Otter's passage says "Project" too, not who


def test_an_answer_resting_on_two_passages_cites_both():
    cited = attribute("Mira Okafor and Tomas Lind.", "Who leads Heron and who leads Otter?",
                      given("heron", "recipes", "otter"))
    assert [p.id for p in cited.cited] == ["heron", "otter"]
    assert cited.marked_text == "Mira Okafor and Tomas Lind. [1][2]"


def test_each_sentence_gets_the_markers_of_its_own_sources():
    cited = attribute("Mira Okafor leads Heron. Tomas Lind leads Otter.", "Who leads what?",
                      given("otter", "heron"))
    assert cited.marked_text == "Mira Okafor leads Heron. [1] Tomas Lind leads Otter. [2]"
    assert [p.id for p in cited.cited] == ["heron", "otter"]


def test_no_citation_rather_than_a_wrong_one():
    question = "What is the meeting room on the third floor called?"
    for answer in ("Bluebird.", "unknown", "I don't know.", "Yes.", "", "Pumpkin."):
        cited = attribute(answer, question, given("heron", "otter") if answer == "Pumpkin." else given("heron", "room"))
        assert cited.cited == [], answer
        assert "[" not in cited.marked_text


def test_one_word_of_many_is_not_support():
    cited = attribute("The buoy was designed by Anna Berg in Oslo in 2019.", "Who designed the buoy?",
                      given("heron"))
    assert cited.cited == []  # "2021"/"buoy" overlap is not what the answer says


def test_the_same_text_indexed_twice_is_cited_once():
    twice = given("room") + [Passage(id="room-copy", text=TEXTS["room"], path="docs/nested/room.txt")]
    cited = attribute("Lighthouse", "What is the meeting room on the third floor called?", twice)
    assert [p.id for p in cited.cited] == ["room"]


def _reader_prompt_holds(prompt: list[dict], passage: Passage) -> bool:
    return passage.text in " ".join(m["content"] for m in prompt)


def test_rag_cites_only_passages_of_the_final_reader_prompt_and_lists_no_unused_source():
    retriever = FakeRetriever(TEXTS)
    reader = FakeReader(answer=lambda prompt: "Lighthouse.")
    ctx = make_context(reader=reader, retriever=retriever, k=4)
    events = list(run_question("What is the meeting room on the third floor called?", "rag", ctx))
    answer = events[-1]
    assert isinstance(answer, Answer)
    final_prompt = reader.prompts[-1]
    assert answer.citations and all(_reader_prompt_holds(final_prompt, p) for p in answer.citations)
    assert set(answer.passages_read) == set(TEXTS)  # all four were read ...
    assert [p.id for p in answer.citations] == ["room"]  # ... one is what the answer rests on
    assert answer.marked_text == "Lighthouse. [1]" and answer.text == "Lighthouse."  # EM sees no marker


class AnswerSearch(FakeRetriever):
    """The question finds only its own passage; a search with the answer in it finds them all."""

    def search(self, query, k):
        self.queries.append(query)
        return self.passages[:k] if "Mira" in query else [p for p in self.passages if "Heron" in p.text]


def test_default_pipeline_cites_from_the_passages_of_the_answer_it_kept():
    """The first answer reads the one passage the question finds; ReFeed's revision reads every
    passage its search with the answer finds. Whichever answer is kept, its citations are among the
    passages given for that answer."""
    question = "Who leads Project Heron?"
    for refined_prob, expected_read in ((0.9, set(TEXTS)), (0.1, {"heron"})):
        reader = FakeReader(answer=lambda prompt: "Mira Okafor.",
                            prob=lambda prompt, text, p=refined_prob: p if "<drafts>" in prompt else 0.5)
        ctx = make_context(reader=reader, retriever=AnswerSearch(TEXTS), k=4)
        answer = list(run_question(question, "default", ctx))[-1]
        assert set(answer.passages_read) == expected_read
        assert [p.id for p in answer.citations] == ["heron"]
        assert {p.id for p in answer.citations} <= set(answer.passages_read)


def test_ask_prints_markers_matching_its_sources_and_json_carries_them(monkeypatch, tmp_path):
    import assistant.runner as runner
    from assistant.cli.main import app

    def fake_context(settings, strategy):
        return make_context(reader=FakeReader(answer=lambda prompt: "Lighthouse."),
                            retriever=FakeRetriever(TEXTS), k=4)

    monkeypatch.setattr(runner, "build_context", fake_context)
    monkeypatch.setenv("ASSISTANT_CONFIG", "/dev/null")
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
    question = "What is the meeting room on the third floor called?"
    result = CliRunner().invoke(app, ["ask", question, "--strategy", "rag"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Lighthouse. [1]"
    sources = [line.strip() for line in lines[lines.index("Sources:") + 1:] if line.strip().startswith("[")]
    assert sources == ["[1] room.md"]  # not recipes.md, heron.md or otter.md
    result = CliRunner().invoke(app, ["ask", question, "--strategy", "rag", "--json"])
    answer = json.loads(result.output.splitlines()[-1])
    assert answer["marked_text"] == "Lighthouse. [1]" and [c["id"] for c in answer["citations"]] == ["room"]
    assert sorted(answer["passages_read"]) == sorted(TEXTS)


def test_trace_is_plain_language_with_file_names_and_thresholds(monkeypatch, tmp_path):
    import assistant.runner as runner
    from assistant.cli.main import app

    judge = FakeJudge(relevant=lambda q, text: "third floor" in text)
    monkeypatch.setattr(runner, "build_context", lambda settings, strategy: make_context(
        reader=FakeReader(answer=lambda prompt: "Lighthouse."), judge=judge, retriever=FakeRetriever(TEXTS), k=4))
    monkeypatch.setenv("ASSISTANT_CONFIG", "/dev/null")
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
    # ra-isf: the prompted judge's yes/no per passage (the default pipeline reads the trained one's ranks)
    result = CliRunner().invoke(app, ["ask", "What is the meeting room on the third floor called?", "--trace=full",
                                      "--strategy", "ra-isf"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Looked up 4 passages for “What is the meeting room on the third floor called?”" in out
    assert "✓ room.md (score 0.80 ≥ 0.50)" in out and "✗ recipes.md (score 0.20 < 0.50)" in out
    assert "Kept 1 of 4 passages (judge score ≥ 0.50)" in out
    assert "Answered from 1 relevant passage" in out
    for internal in ("refeed.", "pipeline.stage", "p=", "+refined"):
        assert internal not in out, internal


def test_trace_calls_passages_relevant_only_when_a_judge_kept_them(monkeypatch, tmp_path):
    import assistant.runner as runner
    from assistant.cli.main import app

    monkeypatch.setattr(runner, "build_context", lambda settings, strategy: make_context(
        reader=FakeReader(answer=lambda prompt: "Lighthouse."), judge=FakeJudge(), retriever=FakeRetriever(TEXTS), k=4))
    monkeypatch.setenv("ASSISTANT_CONFIG", "/dev/null")
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["ask", "What is the meeting room on the third floor called?", "--trace",
                                      "--strategy", "rag"])
    assert result.exit_code == 0, result.output
    assert "Answered from 4 retrieved passages" in result.output and "relevant passage" not in result.output


def test_a_list_number_is_not_a_sentence_and_a_pronoun_sentence_cites_nothing():
    """Seen with SmolLM2 on examples/docs: "1." was cited to a passage holding "Heron-1", and
    "She is the lead of the project." to Otter's passage ("its lead is")."""
    heron = Passage(id="h", text="Project Heron is led by the marine engineer Mira Okafor. The first buoy, "
                                 "Heron-1, was launched in 2023.", path="projects/heron.md")
    otter = Passage(id="o", text="Project Otter is an underwater camera sled; its lead is Tomas Lind.",
                    path="projects/otter.md")
    cited = attribute("1. The project leader is Mira Okafor, the marine engineer. She is the lead of the project.",
                      "Who leads Project Heron?", [heron, otter])
    assert [p.id for p in cited.cited] == ["h"]
    assert cited.marked_text == ("1. The project leader is Mira Okafor, the marine engineer. [1] "
                                 "She is the lead of the project.")


def test_an_answer_that_only_repeats_the_question_cites_nothing():
    assert attribute("Project Heron.", "Is it Project Heron or Project Otter?", given("heron", "otter")).cited == []
