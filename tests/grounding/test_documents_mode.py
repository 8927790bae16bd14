"""On a person's own files (an index of folders and files only) the default pipeline answers a
question whose support the first search finds with one reader call, answers each part of a
question of several parts from its own passages, and labels with the grounding check made for
such files: an answer a read passage states is supported, citing that passage only."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

from assistant.answering.parts import parts_of
from assistant.events.core import Detail, Passage, SubQuestion
from assistant.grounding.documents import ground_documents
from assistant.grounding.documents_check import READ_PROMPT
from assistant.retrieval.retriever import holds_documents
from assistant.runner import run_question

READ_INSTRUCTION = READ_PROMPT.rsplit("\n", 1)[-1]
FILES = {
    "bash-manual": "Report bugs in bash to bug-bash@gnu.org with the bashbug script.",
    "ed-manual": "GNU ed is the standard text editor. Please report bugs in GNU ed to bug-ed@gnu.org.",
    "tar-guide": "GNU tar saves many files together into a single tape or disk archive.",
}


class WordsRetriever(FakeRetriever):
    """A query finds the passages sharing a word of four letters or more with it, best match first."""

    holds_documents = True

    def search(self, query, k):
        self.queries.append(query)
        asked = {w.strip("?.,").lower() for w in query.split() if len(w.strip("?.,")) >= 3}
        scored = [(len(asked & {w.strip("?.,").lower() for w in p.text.split() + p.path.split("-")}), i, p)
                  for i, p in enumerate(self.passages)]
        return [p for n, i, p in sorted(scored, key=lambda t: (-t[0], t[1])) if n][:k]


def by_question(answers: dict[str, str], rereads_yes: bool = True):
    """A reader answering each question from a table; read again, the lines give its answer
    (rereads_yes) or not."""
    def answer(prompt):
        asked = prompt.rsplit("Question:", 1)[-1].strip()
        if asked.endswith(READ_INSTRUCTION):  # reading the lines again, not shown its answer
            asked = asked[:-len(READ_INSTRUCTION)].strip()
            return answers.get(asked, answers.get(f"{asked}?", "none")) if rereads_yes else "none"
        return answers.get(asked, "unknown")
    reader = FakeReader(answer, option_logprob=lambda prompt, option: -0.05 if (option == "yes") == rereads_yes else -3.0)
    reader.path = Path("/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")  # the catalog measured its re-read
    return reader


def run(question, answers, documents=True, spec="default", rereads_yes=True):
    retriever = WordsRetriever(FILES)
    retriever.holds_documents = documents
    reader = by_question(answers, rereads_yes)
    ctx = make_context(reader=reader, judge=FakeJudge(knows=lambda q: False), retriever=retriever, pool=4,
                       max_passages=3, min_passages=1)
    return list(run_question(question, spec, ctx)), reader


def test_which_indexes_hold_a_persons_files():
    listed = {"/home/me/docs": {"kind": "folder"}, "/home/me/notes.md": {"kind": "file"},
              "/data/enwiki.xml.bz2": {"kind": "wikipedia"}}
    assert holds_documents(listed, ["/home/me/docs", "/home/me/notes.md"])
    assert not holds_documents(listed, None)  # a dump among them
    assert not holds_documents({}, None)


def test_a_question_of_several_parts_is_split_and_a_one_fact_question_is_not():
    assert [p.question for p in parts_of("What are the bug addresses for bash and for GNU ed?")] == [
        "What are the bug addresses for bash?", "What are the bug addresses for GNU ed?"]
    assert [p.question for p in parts_of("What is the version and release date of bzip2?")] == [
        "What is the version of bzip2?", "What is the release date of bzip2?"]
    assert [p.question for p in parts_of("Who wrote GNU bc and when was it released?")] == [
        "Who wrote GNU bc?", "When was GNU bc released?"]
    # a setting both parts share stays with the first, and names what "it" is in the second
    assert [p.question for p in parts_of("In my zip manual, what version is described, and what date is printed on it?")] \
        == ["In my zip manual, what version is described?", "What date is printed on my zip manual?"]
    assert [p.question for p in parts_of("With tail -f, how long does it wait, and how many lines does tail print?")] \
        == ["With tail -f, how long does it wait?", "How many lines does tail print?"]
    for whole in ("Who wrote GNU bc?", "What is the meeting room on the third floor called?",
                  "Were Scott Derrickson and Ed Wood of the same nationality?",
                  "Which magazine was started first, Arthur's Magazine or First for Women?",
                  "What is the difference between tar and cpio?", "Who directed the film and the play?",
                  "In my cut manual, which option sets the delimiter and the fields?"):
        assert parts_of(whole) == [], whole


def test_a_stated_answer_is_supported_citing_only_the_passage_that_states_it():
    given = [Passage(id=pid, text=text, path=f"{pid}.txt") for pid, text in FILES.items()]
    checked = ground_documents("bug-ed@gnu.org", "Where do I report bugs in GNU ed?", given)
    assert checked.grounding == "supported" and [p.id for p in checked.cited] == ["ed-manual"]
    wrong = ground_documents("bug-tar@gnu.org", "Where do I report bugs in GNU ed?", given)
    assert wrong.grounding == "not in your documents" and wrong.cited == []


def test_an_answer_found_in_a_passage_about_something_else_is_not_supported():
    """The answer's words are there, but the passage is about another program than the one asked."""
    given = [Passage(id="bash", text=FILES["bash-manual"], path="bash-manual.txt")]
    checked = ground_documents("bug-bash@gnu.org", "What is the bug address of OpenSSL's command line tool?", given)
    assert checked.grounding == "written, not confirmed" and checked.cited == given  # bash's file writes it
    assert checked.marked_text.startswith("Written in bash-manual.txt, but not confirmed as the answer")
    assert ground_documents("bug-ssl@example.org", "What is the bug address of OpenSSL's command line tool?",
                            given).grounding == "not in your documents"  # written nowhere


def test_a_one_fact_question_is_one_answer_call_and_one_short_reread_and_cites_its_file():
    question = "Where do I report bugs in GNU ed?"
    events, reader = run(question, {question: "bug-ed@gnu.org"})
    answer = events[-1]
    assert answer.text == "bug-ed@gnu.org" and answer.grounding == "supported"
    assert [p.id for p in answer.citations] == ["ed-manual"]
    # the answer, then its lines read again: P(yes), and what the reader reads there itself
    assert answer.counts["reader_calls"] == 3 and answer.counts["sub_questions"] == 0
    modules = [e.data["module"] for e in events if isinstance(e, Detail) and e.kind == "pipeline.stage"]
    assert modules == ["retrieve", "reread"]  # stated: no second look-up, no hop
    reread, = [e for e in events if isinstance(e, Detail) and e.kind == "documents.reread"]
    assert reread.data["confirmed"] and reread.data["path"] == "ed-manual.md"
    assert "gives “bug-ed@gnu.org” as the answer" in reread.summary


def test_an_answer_the_reread_lines_do_not_give_is_not_supported_and_says_why():
    question = "Where do I report bugs in GNU ed?"
    events, _ = run(question, {question: "bug-ed@gnu.org"}, rereads_yes=False)
    answer = events[-1]
    # the file writes it, so it is cited and said to be unconfirmed, never "not in your documents"
    assert answer.grounding == "written, not confirmed" and [p.id for p in answer.citations] == ["ed-manual"]
    reread, = [e for e in events if isinstance(e, Detail) and e.kind == "documents.reread"]
    assert not reread.data["confirmed"] and "but not as the answer to this question" in reread.summary
    assert answer.marked_text == ("Written in ed-manual.md, but not confirmed as the answer to this question (read "
                                  "again, ed-manual.md does not give “bug-ed@gnu.org” as the answer): bug-ed@gnu.org [1]")
    off, _ = run(question, {question: "bug-ed@gnu.org"}, rereads_yes=False, spec="default:reread=false")
    assert off[-1].grounding == "supported" and off[-1].counts["reader_calls"] == 1


def test_a_reader_with_no_measured_reread_is_not_asked_to_read_again():
    question = "Where do I report bugs in GNU ed?"
    reader = by_question({question: "bug-ed@gnu.org"}, rereads_yes=False)
    reader.path = Path("/models/smollm2-135m-instruct-q4_1.gguf")  # too small to judge: not measured
    ctx = make_context(reader=reader, judge=FakeJudge(), retriever=WordsRetriever(FILES), pool=4, max_passages=3,
                       min_passages=1)
    events = list(run_question(question, "default", ctx))
    assert events[-1].grounding == "supported" and events[-1].counts["reader_calls"] == 1
    assert not [e for e in events if isinstance(e, Detail) and e.kind == "pipeline.stage" and e.data["module"] == "reread"]


def test_an_answer_the_words_do_not_back_is_not_read_again():
    question = "Where do I report bugs in GNU ed?"
    events, _ = run(question, {question: "bug-tar@gnu.org"})
    assert events[-1].grounding == "not in your documents"
    assert not [e for e in events if isinstance(e, Detail) and e.kind == "documents.reread"]


def test_every_part_is_answered_from_its_own_passage_and_cited():
    answers = {"What are the bug addresses for bash?": "bug-bash@gnu.org",
               "What are the bug addresses for GNU ed?": "bug-ed@gnu.org"}
    events, reader = run("What are the bug addresses for bash and for GNU ed?", answers)
    answer = events[-1]
    assert [e.question for e in events if isinstance(e, SubQuestion)] == list(answers)
    assert "bug-bash@gnu.org" in answer.text and "bug-ed@gnu.org" in answer.text
    assert answer.grounding == "supported"
    assert {p.id for p in answer.citations} == {"bash-manual", "ed-manual"}
    assert answer.marked_text.count("[1]") == 1 and answer.marked_text.count("[2]") == 1  # each part its own


def test_on_other_indexes_nothing_changes():
    """A dump or a dataset: no parts, the trained check as before."""
    question = "What are the bug addresses for bash and for GNU ed?"
    events, reader = run(question, {question: "bug-bash@gnu.org"}, documents=False, rereads_yes=False)
    assert not any(isinstance(e, SubQuestion) and e.question.endswith("for bash?") for e in events)
    assert not any(isinstance(e, Detail) and e.kind == "documents.reread" for e in events)  # no re-read


def test_a_sentence_naming_what_its_passage_does_not_is_not_supported():
    """Heron's leader written as Otter's: every word but "Otter" is on Heron's page."""
    heron = Passage(id="heron", text="Project Heron is led by the marine engineer Mira Okafor.", path="projects/heron.md")
    checked = ground_documents("Project Otter is led by the marine engineer Mira Okafor.",
                               "Who leads Project Otter?", [heron])
    assert checked.grounding == "not in your documents"
    assert ground_documents("Project Heron is led by Mira Okafor.", "Who leads Project Heron?",
                            [heron]).grounding == "supported"


def test_the_plain_searchs_best_passages_are_read_beside_the_judges():
    """A judge fitted on encyclopedia pages may rank the holding manual low: it is read all the same."""
    question = "Where do I report bugs in GNU ed?"
    retriever = WordsRetriever(FILES)
    reader = by_question({question: "bug-ed@gnu.org"})
    ctx = make_context(reader=reader, judge=FakeJudge(knows=lambda q: False), retriever=retriever, pool=4,
                       max_passages=1, min_passages=1)
    ctx.relevance = TarFirst()
    answer = list(run_question(question, "default:chain=false", ctx))[-1]
    assert "ed-manual" in answer.passages_read and answer.grounding == "supported"


@pytest.mark.parametrize("reader_file, reads_fifth", [
    ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", True),  # measured: the search's best 5
    ("SmolLM2-135M-Instruct.Q4_1.gguf", False),  # the bundled reader's preset: 2
    ("someone-elses-reader.gguf", True),  # nothing measured: the code's values
])
def test_how_many_of_the_searchs_best_are_read_is_the_readers_preset(reader_file, reads_fifth):
    manuals = {f"manual-{n}": f"Manual {n} documents the option number {n} report." for n in range(1, 6)}
    manuals["tar-guide"] = FILES["tar-guide"]
    question = "Which manual documents the option number report?"
    reader = by_question({question: "Manual 5"})
    reader.path = Path("/models") / reader_file
    ctx = make_context(reader=reader, judge=FakeJudge(knows=lambda q: False), retriever=FakeRetriever(manuals),
                       pool=6, max_passages=1, min_passages=1)
    ctx.retriever.holds_documents = True
    ctx.relevance = TarFirst()
    answer = list(run_question(question, "default:chain=false", ctx))[-1]
    assert "tar-guide" in answer.passages_read and "manual-1" in answer.passages_read
    assert ("manual-5" in answer.passages_read) == reads_fifth


class TarFirst:
    """A trained judge that ranks the tar guide first, whatever is asked."""

    name, threshold, sufficiency = "fake-trained", 0.5, (1, 0.5)

    def score(self, question, passages):
        return [0.9 if "tar" in p else 0.1 for p in passages]


def test_a_number_is_found_as_written_in_the_passage_about_the_question():
    """"6" stands in "level -6" of gzip's page, not in "1996" of another; that page is cited."""
    given = [Passage(id="rfc", text="The format is described in RFC 1952 of May 1996.", path="notes/formats.md"),
             Passage(id="gzip", text="The default compression level is -6 when no level is given.",
                     path="manuals/gzip.txt")]
    checked = ground_documents("6", "What compression level does gzip use by default?", given)
    assert checked.grounding == "supported" and [p.id for p in checked.cited] == ["gzip"]


def test_a_number_is_found_in_the_form_the_manual_writes_it():
    """"900000" is the "900 k" of bzip2's manual, "1,000,000" the "1000000" of a note; "6" is not
    the "6,000" of another passage."""
    given = [Passage(id="bzip2", text="-9 sets the block size to 900 k when compressing.", path="manuals/bzip2.txt")]
    checked = ground_documents("900000", "What block size does bzip2 use with -9?", given)
    assert checked.grounding == "supported" and [p.id for p in checked.cited] == ["bzip2"]
    note = [Passage(id="limits", text="The log limit for heron is 1000000 lines.", path="notes/heron-limits.md")]
    assert ground_documents("1,000,000", "What is the log limit for heron?", note).grounding == "supported"
    other = [Passage(id="count", text="The gzip level table lists 6,000 entries.", path="manuals/gzip.txt")]
    assert ground_documents("6", "What compression level does gzip use by default?", other).grounding != "supported"


def test_a_second_part_that_names_nothing_is_asked_of_what_the_first_names():
    parts = parts_of("Which diffutils version is my diff manual from, and what's the bug address?")
    assert [p.question for p in parts] == ["Which diffutils version is my diff manual from?",
                                           "What's the bug address (diffutils diff)?"]
    assert parts[1].label == "What's the bug address"  # the answer reads as the person asked
    own = parts_of("How often does watch refresh by default, and what exit status does timeout give?")
    assert own[1].question == "What exit status does timeout give?"  # it names its own subject
    assert parts_of("Who wrote the original patch, and who wrote join?")[1].question == "Who wrote join?"
    asks_nothing = parts_of("What level does the gzip command use, and what does gzip.open use?")
    assert asks_nothing[1].question == "What does gzip.open use (level gzip command)?"  # what the first asks


def test_a_question_of_several_parts_is_split_before_the_reader_answers_from_memory():
    answers = {"What are the bug addresses for bash?": "bug-bash@gnu.org",
               "What are the bug addresses for GNU ed?": "bug-ed@gnu.org"}
    retriever = WordsRetriever(FILES)
    ctx = make_context(reader=by_question(answers), judge=FakeJudge(knows=lambda q: True), retriever=retriever,
                       pool=4, max_passages=3, min_passages=1)
    answer = list(run_question("What are the bug addresses for bash and for GNU ed?", "default", ctx))[-1]
    assert answer.resolved_by == "parts" and "bug-ed@gnu.org" in answer.text


def test_the_joined_answer_of_the_parts_is_not_refined_into_one_part():
    answers = {"What are the bug addresses for bash?": "bug-bash@gnu.org",
               "What are the bug addresses for GNU ed?": "no idea"}  # not stated: ReFeed would run
    events, reader = run("What are the bug addresses for bash and for GNU ed?", answers)
    answer = events[-1]
    assert answer.resolved_by == "parts" and "For bash: bug-bash@gnu.org." in answer.text


def test_the_files_are_read_before_the_readers_memory_is_asked():
    """One-fact questions cost one reader call: the memory gate is not asked first."""
    question = "Where do I report bugs in GNU ed?"
    judge = FakeJudge(knows=lambda q: True)  # it would answer from memory, if asked first
    ctx = make_context(reader=by_question({question: "bug-ed@gnu.org"}), judge=judge,
                       retriever=WordsRetriever(FILES), pool=4, max_passages=3, min_passages=1)
    answer = list(run_question(question, "default", ctx))[-1]
    assert answer.text == "bug-ed@gnu.org" and answer.grounding == "supported"
    assert ("knows", question) not in judge.calls and answer.counts["reader_calls"] == 3  # the answer, the re-read


def test_an_answer_not_in_the_files_asks_memory_last_and_says_so():
    question = "Who created GNU tar?"
    judge = FakeJudge(knows=lambda q: True)
    reader = FakeReader(lambda prompt: "unknown" if "[1] title:" in prompt else "John Gilmore")
    ctx = make_context(reader=reader, judge=judge, retriever=WordsRetriever(FILES), pool=4, max_passages=3,
                       min_passages=1)
    events = list(run_question(question, "default", ctx))
    answer = events[-1]
    assert ("knows", question) in judge.calls
    assert "Gilmore" in answer.text and answer.grounding == "from memory"
    # what was found first, then the guess, said to be one
    assert answer.marked_text == ("Not found in the passages read from your documents. The reader's guess from "
                                  "memory: John Gilmore")
    assert not any(isinstance(e, SubQuestion) for e in events)  # no missing hop in a person's files


def test_the_chain_read_set_is_not_picked_in_a_persons_files(monkeypatch):
    """Bridges between article titles mean nothing in a person's files; on a dataset it is picked."""
    import assistant.profiles.pages as default
    picked = []

    def chain(ctx, question, ranking, parent=None):
        picked.append(question)
        return ranking
        yield

    monkeypatch.setattr(default, "chain_read_set", chain)
    question = "Where do I report bugs in GNU ed?"
    for documents in (True, False):
        retriever = WordsRetriever(FILES)
        retriever.holds_documents = documents
        ctx = make_context(reader=by_question({question: "bug-ed@gnu.org"}), judge=FakeJudge(), retriever=retriever,
                           pool=4, max_passages=1, min_passages=1)
        ctx.relevance = TarFirst()
        list(run_question(question, "default:chain=true", ctx))
    assert picked == [question]  # the dataset's run only


def test_more_shapes_of_a_question_of_two_parts():
    cases = {
        "What are bc's largest output base and largest input base?":
            ["What is bc's largest output base?", "What is bc's largest input base?"],
        "For the gzip command: default compression level, and the address for bug reports?":
            ["For the gzip command: default compression level?", "For the gzip command: the address for bug reports?"],
        "What signal do kill and timeout each send by default?":
            ["What signal does kill send by default?", "What signal does timeout send by default?"],
        "What version number and date does the zpipe.c example carry?":
            ["What version number does the zpipe.c example carry?", "What date does the zpipe.c example carry?"],
        "Which versions of unzip and of openssl do my manuals describe?":
            ["Which versions of unzip do my manuals describe?", "Which versions of openssl do my manuals describe?"],
        "In my zstd notes, which flag keeps the source file, and roughly how fast does it compress?":
            ["In my zstd notes, which flag keeps the source file?", "Roughly how fast does my zstd notes compress?"],
    }
    for question, expected in cases.items():
        assert [p.question for p in parts_of(question)] == expected, question
    for whole in ("Which RFC do the Base16, Base32 and Base64 encodings in my base64 notes come from?",
                  "What is the difference between tar and cpio?", "Who directed the film and the play?",
                  "In my cut manual, which option sets the delimiter and the fields?"):
        assert parts_of(whole) == [], whole


def test_several_questions_in_one_message_are_its_parts():
    """Questions each ending with "?" are parts, each with the statement before it; questions
    joined by ", and" are parts when both ask; a quotation is never split, and a label is one
    sentence with no colon (the joined answer's "LABEL: ANSWER." tells the parts apart)."""
    cases = {
        "Quick questions: I need gzip to keep the input file. Which flag is that? Also, who maintains gzip?":
            ["I need gzip to keep the input file. Which flag is that?", "Who maintains gzip?"],
        "Which port does the mail relay use? And which user does it run as?":
            ["Which port does the mail relay use?", "Which user does it run as?"],
        "Which zip option is described as \"junk the paths\", and in unzip, what option lists the files?":
            ["Which zip option is described as \"junk the paths\"?", "In unzip, what option lists the files?"],
        "Version 2.4 came with which release of sed, and I want grep to count matches. Which option does that?":
            ["Version 2.4 came with which release of sed?", "I want grep to count matches. Which option does that?"],
    }
    for question, expected in cases.items():
        assert [p.question for p in parts_of(question)] == expected, question
    labelled = parts_of('Which xxd option is documented as "Reverse operation: convert hex. Or patch"? '
                        'Also, which xxd option dumps bits?')
    assert [p.label for p in labelled] == ['Which xxd option is documented as "Reverse operation, convert hex; Or patch"',
                                           "Which xxd option dumps bits"]
    for whole in ('Which tar option is described as "Keep old files? Do not replace them", please?',
                  'Who wrote the change "Add a flag and what it prints to the help"?',
                  "What does gzip do? Right?"):
        assert len(parts_of(whole)) < 2, whole


def test_an_option_is_found_as_written_not_as_its_letter():
    """"-E" stands in ed's manual; the "e" of time's "%e" states nothing."""
    manuals = [Passage(id="time", text="time -p prints in the portable format. In a format, %e is the elapsed time.",
                       title="time", path="time/manual.md"),
               Passage(id="ed", text="-E, --extended-regexp use extended regular expressions instead of basic ones.",
                       title="ed", path="ed/invoking.md")]
    question = "Which option makes time print in the portable format? And which option makes ed use extended expressions?"
    labels = [p.label for p in parts_of(question)]
    answer = f"{labels[0]}: -p. {labels[1]}: -E."
    checked = ground_documents(answer, question, manuals, parts=True)
    assert checked.grounding == "supported" and [p.id for p in checked.cited] == ["time", "ed"]
    assert ground_documents(f"{labels[0]}: -p. {labels[1]}: -X.", question, manuals, parts=True).grounding != "supported"
    assert ground_documents(f"{labels[0]}: -P. {labels[1]}: -E.", question, manuals, parts=True).grounding != "supported"


def test_each_part_is_checked_as_its_own_answer_to_its_own_part():
    """A part's label is the question's words: its numbers need not be in the passage ("80"), and
    a part answered with nothing of its own ("the getopt option") is not stated by the other's."""
    fold = [Passage(id="fold", text="-w, --width=WIDTH use WIDTH columns. -b, --bytes count bytes rather than columns.",
                    title="fold", path="fold.txt")]
    question = "How do I get fold to use WIDTH columns instead of 80? Also, which fold option counts bytes?"
    first, second = (p.label for p in parts_of(question))
    assert ground_documents(f"{first}: -w. {second}: -b.", question, fold, parts=True).grounding == "supported"
    getopt = [Passage(id="getopt", text="-l, --longoptions the long options to be recognized. -q, --quiet disable "
                      "error reporting.", title="getopt", path="getopt.txt")]
    question = 'Which getopt option is documented as "the long options to be recognized"? And which one quiets it?'
    first, second = (p.label for p in parts_of(question))
    assert ground_documents(f"{first}: -l. {second}: -q.", question, getopt, parts=True).grounding == "supported"
    echoed = ground_documents(f"{first}: the getopt option. {second}: -q.", question, getopt, parts=True)
    assert echoed.grounding != "supported"


def test_an_answer_from_a_file_about_another_program_is_not_supported(tmp_path):
    """"GNU awk" has no manual here: join's page holds "bug", "report", "address" and "GNU" (most
    of the question's words) but not "awk", the word the person's own files hold least."""
    from helpers.hash_embedder import HashEmbedder, write
    from assistant.grounding.documents import subject_of
    from assistant.retrieval.retriever import HybridRetriever
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore

    docs = tmp_path / "docs"
    write(docs, "join.txt", "GNU join joins lines of two files. Report bugs to bug-coreutils@gnu.org; report "
                            "translation bugs to https://translationproject.org/team/ for GNU programs.")
    write(docs, "sed.txt", "GNU sed is a stream editor; like awk it reads its input line by line. Report bugs "
                           "to bug-sed@gnu.org, with the address of the GNU project.")
    for name in ("tar", "grep", "gzip"):
        write(docs, f"{name}.txt", f"GNU {name}: report bugs to the bug-{name}@gnu.org address.")
    store = IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(store, HashEmbedder(), docs)
    retriever = HybridRetriever(store, HashEmbedder())
    assert retriever.passages_with("awk") == 1 and retriever.passages_with("bug") == 5
    question = "What's the bug-report address for GNU awk?"
    assert subject_of(question, retriever.passages_with) == {"awk"}
    join = Passage(id="join", text="GNU join joins lines of two files. Report bugs to bug-coreutils@gnu.org; report "
                   "translation bugs to https://translationproject.org/team/ for GNU programs.", path="join.txt")
    answer = "https://translationproject.org/team/"
    assert ground_documents(answer, question, [join]).grounding == "supported"  # without the subject
    # join's manual writes it but is not about awk: cited as written there, not confirmed
    assert ground_documents(answer, question, [join], subject=frozenset({"awk"})).grounding == "written, not confirmed"


def test_a_manual_named_by_the_question_is_about_it_however_it_is_worded():
    watch = Passage(id="watch", text="-n, --interval seconds: Specify update interval. By default the program "
                    "is run every 2 seconds.", path="manuals/watch.txt")
    question = "How often does watch rerun its command unless I say otherwise?"  # few of its words there
    checked = ground_documents("2 seconds", question, [watch], subject=frozenset({"say"}))
    assert checked.grounding == "supported" and [p.id for p in checked.cited] == ["watch"]
    other = Passage(id="other", text=watch.text, path="manuals/timer.txt")
    assert ground_documents("2 seconds", question, [other]).grounding == "written, not confirmed"


def test_each_part_of_a_joined_answer_rests_on_a_passage_about_its_own_part():
    patch = Passage(id="patch", text="Larry Wall wrote the original version of patch.", path="manuals/patch.txt")
    join = Passage(id="join", text="join was written by Mike Haertel. Report bugs to bug-coreutils@gnu.org.",
                   path="work/join.docx")
    question = "Who wrote the original patch, and who wrote join?"

    def check(answer, given, asked=question):
        return ground_documents(answer, asked, given, parts=True).grounding

    # the second part's own word ("join") is in no passage it rests on: patch's manual is the first part's
    assert check("Who wrote the original patch: Larry Wall. Who wrote join: Larry Wall.", [patch]) \
        == "written, not confirmed"
    assert check("Who wrote the original patch: Larry Wall. Who wrote join: Mike Haertel.", [patch, join]) \
        == "supported"
    # a part with no word of its own rests on the file the other part names; "wrote" need not be there
    notes = Passage(id="notes", text=join.text, path="work/coreutils-notes.docx")
    assert check("Who wrote join: Mike Haertel. What's the bug address: bug-coreutils@gnu.org.", [notes],
                 "Who wrote join, and what's the bug address?") == "supported"


def test_each_part_must_answer_the_kind_its_part_asks():
    """"For GNU grep: bug-reporting address." names no address: the whole answer is not supported,
    though grep's manual writes those words."""
    given = [Passage(id="sed", title="sed", path="manuals/sed.txt",
                     text="GNU sed home page: <https://www.gnu.org/software/sed/>. E-mail bug reports to: "
                          "<bug-sed@gnu.org>. SEE ALSO awk(1), ed(1), grep(1)"),
             Passage(id="grep", title="grep", path="manuals/grep.txt",
                     text="Copyright 1998-2000, 2002, 2005-2022 Free Software Foundation, Inc. BUGS Reporting Bugs "
                          "Email bug reports to the bug-reporting address ⟨bug-grep@gnu.org⟩. An email archive "
                          "⟨https://lists.gnu.org/mailman/listinfo/bug-grep⟩ is available.")]
    question = "What are the bug addresses for GNU sed and for GNU grep?"
    half = ground_documents("For GNU sed: bug-sed@gnu.org. For GNU grep: bug-reporting address.", question, given,
                            parts=True)
    assert half.grounding == "written, not confirmed"  # each sentence's words are in grep's or sed's file
    whole = ground_documents("For GNU sed: bug-sed@gnu.org. For GNU grep: bug-grep@gnu.org.", question, given,
                             parts=True)
    assert whole.grounding == "supported" and [p.id for p in whole.cited] == ["sed", "grep"]


def test_a_question_naming_a_file_of_the_folder_is_about_that_file():
    """"the free command" where free.pdf is indexed: zip's manual, which says "free" and gives an
    address, does not answer it; free's own manual does."""
    from assistant.grounding.documents import files_named

    question = "Where am I supposed to send bug reports about the free command?"
    named = files_named(question, lambda: frozenset({"free", "zip", "seq"}))
    assert named == {"free"}
    zip_page = Passage(id="zip", title="zip", path="manuals/pdf/zip.pdf",
                       text="zip is free software. Send bug reports, comments and suggestions about the command "
                            "to www.info-zip.org.")
    assert ground_documents("www.info-zip.org", question, [zip_page]).grounding == "supported"  # without the names
    assert ground_documents("www.info-zip.org", question, [zip_page], named=named).grounding != "supported"
    free_page = Passage(id="free", title="free", path="manuals/pdf/free.pdf",
                        text="REPORTING BUGS Please send bug reports to procps@freelists.org")
    assert ground_documents("procps@freelists.org", question, [zip_page, free_page], named=named).grounding == \
        "supported"
    assert files_named(question, None) == frozenset()


def test_each_part_is_read_again_as_the_part_asked_alone():
    answers = {"What are the bug addresses for bash?": "bug-bash@gnu.org",
               "What are the bug addresses for GNU ed?": "bug-ed@gnu.org"}
    events, _ = run("What are the bug addresses for bash and for GNU ed?", answers)
    rereads = [e for e in events if isinstance(e, Detail) and e.kind == "documents.reread"]
    assert [e.data["asked"] for e in rereads] == ["What are the bug addresses for bash",
                                                  "What are the bug addresses for GNU ed"]  # not "For bash"


def test_an_evaluation_record_keeps_each_reread_verdict():
    from index_builder.datasets import QAExample
    from research.evaluation.results import make_record

    question = "Where do I report bugs in GNU ed?"
    events, _ = run(question, {question: "bug-ed@gnu.org"})
    record = make_record(QAExample(id="q", question=question, answers=["bug-ed@gnu.org"]), events, 1.0)
    verdict, = record["rereads"]
    assert (verdict["claim"], verdict["path"], verdict["confirmed"], verdict["read"]) == (
        "bug-ed@gnu.org", "ed-manual.md", True, "bug-ed@gnu.org")
    assert verdict["p_yes"] > 0.63
