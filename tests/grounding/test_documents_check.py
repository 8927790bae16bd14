"""The re-read on a person's own files (assistant/grounding/documents_check.py): the reader reads
again the lines a short answer rests on, and its verdict joins the word check's; and the lab's data
for choosing its threshold (reader-written questions from other manuals, the mistakes beside each)."""
from __future__ import annotations

from assistant.events.core import Passage
from assistant.grounding.documents import ground_documents
from assistant.grounding.documents_check import ReaderCheck, asked_and_claimed, lines_around
from lab.documents_claim_pairs import (LEFT_OUT, NEAR_MISS, OTHER_FILE, POSITIVE, Claim, build_groups, claims,
                                       left_out, near_misses)
from lab.documents_claims import facts, question_of

TEE = ("OPTIONS -a, --append append to the given FILEs, do not overwrite. -i, --ignore-interrupts ignore "
       "interrupt signals. -p diagnose errors writing to non pipes. Written by Mike Parker, Richard M. Stallman, "
       "and David MacKenzie. GNU coreutils 9.1 September 2022.")
SPLIT = ("-l, --lines=NUMBER put NUMBER lines/records per output file. The default size is 1000 lines, and the "
         "default PREFIX is 'x'. Report bugs to bug-coreutils@gnu.org with the word split in the subject.")


def claim(answer: str, passage: str = TEE, question: str = "Which tee option adds to a file instead of overwriting it?",
          title: str = "tee") -> Claim:
    return Claim(f"{title}#0", title, passage, question, answer, tuple(f for f in facts(passage) if f != answer))


def test_the_facts_a_question_is_written_for_are_options_numbers_versions_and_addresses():
    found = facts(SPLIT)
    assert {"-l", "--lines=NUMBER", "1000", "bug-coreutils@gnu.org"} <= set(found)
    assert "default" not in found and "x" not in found
    twice = "The default is 5. Before 3.7 the default was 5."
    assert "5" not in facts(twice) and "3.7" in facts(twice)  # a fact written twice is no pick


def test_a_reply_is_kept_only_as_a_question_that_does_not_give_its_answer_away():
    assert question_of("Which option of tee appends?\nAnswer: -a", "-a") == "Which option of tee appends?"
    assert question_of("Use -a to append?", "-a") is None
    assert question_of("The option is -a.", "-a") is None


def test_a_near_miss_is_another_fact_of_the_passage_never_the_answer_written_another_way():
    misses = near_misses(claim("-a"))
    assert "--append" not in misses  # "-a, --append": one option
    assert "-i" in misses and "-p" in misses


def test_left_out_drops_the_sentences_that_state_the_answer():
    rest = left_out(claim("9.1"))
    assert rest is not None and "9.1" not in rest and "--append" in rest


def test_each_group_holds_the_stated_answer_first_then_each_kind_of_mistake():
    records = [{"title": "tee", "passage": TEE, "question": "Which tee option appends to files?", "answer": "-a",
                "others": [f for f in facts(TEE) if f != "-a"]},
               {"title": "split", "passage": SPLIT, "question": "How many lines go in each piece by default?",
                "answer": "1000", "others": [f for f in facts(SPLIT) if f != "1000"]},
               {"title": "broken", "passage": "no answer here", "question": "What?", "answer": "42", "others": []}]
    chosen = claims(records)
    assert [c.title for c in chosen] == ["tee", "split"]  # an answer the passage lacks is dropped
    groups = build_groups(chosen, chosen, seed=0)
    tee = groups[0]
    assert (tee[0].kind, tee[0].label, tee[0].claim) == (POSITIVE, 1, "-a")
    kinds = {p.kind: p for p in tee[1:]}
    assert set(kinds) == {NEAR_MISS, OTHER_FILE, LEFT_OUT} and all(p.label == 0 for p in tee[1:])
    assert kinds[OTHER_FILE].title == "split"  # planted in the other manual
    assert "-a" in kinds[OTHER_FILE].passage and "-a" not in kinds[LEFT_OUT].passage
    # groups are made from a seed: the same data, the same groups
    assert [p.passage for p in build_groups(chosen, chosen, seed=0)[0]] == [p.passage for p in tee]


def test_a_part_of_a_joined_answer_is_checked_against_its_own_part():
    assert asked_and_claimed("Q?", "Who wrote timeout: Padraig Brady.", parts=True) == ("Who wrote timeout",
                                                                                         "Padraig Brady")
    assert asked_and_claimed("Which version?", "3.8.", parts=False) == ("Which version?", "3.8")


def test_the_lines_read_again_are_those_around_the_answer_nearest_the_question():
    text = " ".join(["filler"] * 100) + " zipinfo v1.2 lists archives. " + " ".join(["more"] * 100) + \
           " UnZip version v6.0 of 20 April 2009. " + " ".join(["tail"] * 100)
    lines = lines_around(text, "v6.0", "What UnZip version is this manual for?", width=10)
    assert "v6.0" in lines and "zipinfo" not in lines and len(lines.split()) <= 20
    lines = lines_around(text, "v1.2", "Which zipinfo version?", width=10)
    assert "zipinfo v1.2" in lines
    assert lines_around("no such thing here", "42", "What?", width=3) == "no such thing here"


class YesWhen:
    """A reader that says yes (log-odds 3:1 or so) when the lines shown hold a phrase, else no."""

    def __init__(self, phrase: str):
        self.phrase = phrase
        self.prompts: list[str] = []

    def score_options(self, messages, options):
        from models.reader.llama_reader import Scored

        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        yes = self.phrase in prompt.split("Question:")[0]
        return [Scored([-0.05 if (o == "yes") == yes else -3.0]) for o in options]

    def generate(self, messages, **kwargs):
        """Asked to answer from the lines itself: the phrase where they hold it."""
        from models.reader.llama_reader import Generation

        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        return Generation([-0.1], self.phrase if self.phrase in prompt.split("Question:")[0] else "none", "stop")


PASSAGES = [Passage(id="tee-1", text=TEE, title="tee", path="manuals/tee.txt"),
            Passage(id="split-1", text=SPLIT, title="split", path="manuals/split.txt")]


def test_an_answer_written_in_the_file_but_not_given_as_the_answer_is_not_supported():
    question = "Which coreutils version is the tee manual from?"
    assert ground_documents("9.1", question, PASSAGES).grounding == "supported"  # the words are there
    said_no = ReaderCheck(YesWhen("nothing of the kind"), 0.63)
    checked = ground_documents("9.1", question, PASSAGES, states=said_no.states)
    # written in tee's manual, so not "not in your documents": cited, the label says it is unconfirmed
    assert checked.grounding == "written, not confirmed" and [p.id for p in checked.cited] == ["tee-1"]
    assert checked.marked_text == "Written in manuals/tee.txt, but not confirmed as the answer to this question: 9.1 [1]"
    verdict, = said_no.verdicts
    assert (verdict.claim, verdict.path, verdict.confirmed) == ("9.1", "manuals/tee.txt", False)
    said_yes = ReaderCheck(YesWhen("GNU coreutils 9.1"), 0.63)
    checked = ground_documents("9.1", question, PASSAGES, states=said_yes.states)
    assert checked.grounding == "supported" and [p.id for p in checked.cited] == ["tee-1"]
    assert said_yes.verdicts[0].p_yes > 0.9 and "From the file manuals/tee.txt" in said_yes.reader.prompts[0]


def test_each_part_is_read_again_alone_and_a_long_sentence_is_left_to_the_word_check():
    check = ReaderCheck(YesWhen("1000 lines"), 0.63)
    answer = "How many lines per piece does split make: 1000. Who wrote tee: Mike Parker."
    checked = ground_documents(answer, "How many lines per piece does split make, and who wrote tee?", PASSAGES,
                               parts=True, states=check.states)
    assert checked.grounding == "written, not confirmed"  # tee's part: the lines do not give it
    assert [(v.asked, v.claim, v.confirmed) for v in check.verdicts] == [
        ("How many lines per piece does split make", "1000", True), ("Who wrote tee", "Mike Parker", False)]
    long_claim = "tee copies its standard input to each given file and to standard output as well"
    assert check.states("What does tee do?", long_claim, PASSAGES[:1]) and len(check.verdicts) == 2


def test_the_budget_is_asked_before_each_call():
    calls = []
    check = ReaderCheck(YesWhen("zzz"), 0.63, before_call=lambda: calls.append(1))
    check.states("Q?", "9.1", PASSAGES)
    assert len(calls) == 2  # neither passage confirmed: both read, each after asking


def test_the_reread_threshold_is_the_catalogs_for_the_reader_measured():
    from models.downloads.catalog import reread_threshold_of

    assert reread_threshold_of("/anywhere/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf") == 0.63
    assert reread_threshold_of("/anywhere/Qwen2.5-3B-Instruct-Q4_K_M.gguf") is None  # not measured
    assert reread_threshold_of("/anywhere/my-own-model.gguf") is None


def test_the_claims_to_read_are_planned_without_a_call_and_each_read_once():
    from assistant.grounding.documents_check import planned_claims

    question = "How many lines per piece does split make, and who wrote tee?"
    answer = "How many lines per piece does split make: 1000. Who wrote tee: Mike Parker."
    reader = YesWhen("1000 lines")
    check = ReaderCheck(reader, 0.63)
    ground = lambda states: ground_documents(answer, question, PASSAGES, parts=True, states=states)  # noqa: E731
    words, claims = planned_claims(ground)
    assert words.grounding == ground(None).grounding == "supported"  # the word check's label, unread
    assert [(a, c, [p.id for p in ps]) for a, c, ps in claims] == [
        ("How many lines per piece does split make", "1000", ["split-1"]), ("Who wrote tee", "Mike Parker", ["tee-1"])]
    assert reader.prompts == []  # planning reads nothing
    for asked, claim, passages in claims:
        check.verdict(asked, claim, passages)
    calls = len(reader.prompts)
    assert ground(check.states).grounding == "written, not confirmed" and len(reader.prompts) == calls


def test_a_part_leaning_on_the_question_is_read_again_as_the_part_asked_alone():
    from assistant.answering.parts import questions_by_label

    question = "With split, how many lines does each piece get, and what's the bug address for it?"
    alone = questions_by_label(question)
    assert alone["What's the bug address for it"] == "What's the bug address for split"
    answer = "How many lines does each piece get: 1000. What's the bug address for it: bug-coreutils@gnu.org."
    check = ReaderCheck(YesWhen("1000 lines"), 0.63)
    ground_documents(answer, question, PASSAGES, parts=True, states=check.states)
    assert [v.asked for v in check.verdicts] == ["With split, how many lines does each piece get",
                                                 "What's the bug address for split"]


class Reads(YesWhen):
    """Says yes to whatever the lines hold; asked to answer from them itself, reads `read`."""

    def __init__(self, read: str):
        super().__init__("")
        self.read = read

    def generate(self, messages, **kwargs):
        from models.reader.llama_reader import Generation

        self.prompts.append(messages[-1]["content"])
        return Generation([-0.1], self.read, "stop")


def test_a_yes_is_confirmed_only_when_the_reader_reads_the_same_answer_in_the_lines():
    from assistant.grounding.documents_check import reread_line

    question = "Which tee option adds to a file instead of overwriting it?"
    near_miss = ReaderCheck(Reads("-a"), 0.63)  # yes to "-i", the line beside; reading, it says "-a"
    assert ground_documents("-i", question, PASSAGES, states=near_miss.states).grounding == "written, not confirmed"
    verdict, = near_miss.verdicts
    assert verdict.read == "-a" and not verdict.confirmed and verdict.p_yes > 0.9
    assert reread_line(verdict) == "Read manuals/tee.txt again: it writes “-i”, but reads “-a” as the answer"
    assert "Reply with the answer only" in near_miss.reader.prompts[-1] and "-i" not in near_miss.reader.prompts[-1].split(
        "Question:")[1]  # not shown the answer it checks
    other_name = ReaderCheck(Reads("--append"), 0.63)  # "-a, --append": one option
    checked = ground_documents("-a", question, PASSAGES, states=other_name.states)
    assert checked.grounding == "supported" and other_name.verdicts[0].confirmed
