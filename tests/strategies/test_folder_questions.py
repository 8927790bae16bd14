"""Questions about the folder itself: recognised by patterns (and ordinary questions left alone),
answered from a real index of a small folder (which files mention X, how many, files by kind,
summarise FILE read through), labelled and cited."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.folder.answers import FolderResult, answer_folder_question, folder_question
from assistant.context import Result
from assistant.events.core import Answer, Note, Passage
from assistant.events.details import FolderQuestion
from assistant.events.event_json import event_from_dict
from assistant.presentation.step_text import StepNarrator
from assistant.retrieval.retriever import HybridRetriever
from assistant.runner import run_question
from assistant.strategies.base import Strategy
from index_builder.folder import index_folder
from index_builder.store import IndexStore
from research.evaluation.support import SupportHidden

from helpers.fakes import FakeReader, FakeRetriever, make_context
from helpers.hash_embedder import HashEmbedder, write

POSITIVES = [
    ("Which of my files mention tar?", "which", "tar", ""),
    ("Which files mention Ken Pizzini?", "which", "Ken Pizzini", ""),
    ("What documents talk about the bug address?", "which", "the bug address", ""),
    ('Which of my documents contain the word "licence"?', "which", "licence", ""),
    ("Which file mentions GNU make?", "which", "GNU make", ""),
    ("Which of my notes cover the budget?", "which", "the budget", ""),
    ("Which PDFs mention gzip?", "which", "gzip", "pdf"),
    ("Do any of my files mention Perl?", "which", "Perl", ""),
    ("Is bash mentioned in any of my files?", "which", "bash", ""),
    ("In which of my files is Emacs mentioned?", "which", "Emacs", ""),
    ("Are there any files about printing?", "which", "printing", ""),
    ("List my files about backups.", "which", "backups", ""),
    ("List the files that mention tar", "which", "tar", ""),
    ("Show me my documents mentioning bzip2", "which", "bzip2", ""),
    ('Find all files containing "copyright"', "which", "copyright", ""),
    ("How many of my files mention OpenSSL?", "count", "OpenSSL", ""),
    ("How many documents mention the GPL?", "count", "the GPL", ""),
    ("how many files in my folder mention herons", "count", "herons", ""),
    ("How many PDFs do I have?", "count-files", "", "pdf"),
    ("How many files are there?", "count-files", "", ""),
    ("How many files are in my folder?", "count-files", "", ""),
    ("How many documents have I indexed?", "count-files", "", ""),
    ("How many of my files are PDFs?", "count-files", "", "pdf"),
    ("How many Word documents are there?", "count-files", "", "word"),
    ("How many markdown files do I have", "count-files", "", "markdown"),
    ("List my files.", "list-files", "", ""),
    ("What files do I have?", "list-files", "", ""),
    ("Show me all my PDFs", "list-files", "", "pdf"),
    ("Summarise README.md", "summary", "README.md", ""),
    ("Summarize the tar manual.", "summary", "the tar manual", ""),
    ("Give me a summary of the file named NEWS", "summary", "the file named NEWS", ""),
    ("Can you summarise notes.txt for me?", "summary", "notes.txt", ""),
    ("What is README.md about?", "summary", "README.md", ""),
    ("What is the bash manual about?", "summary", "the bash manual", ""),
    ("What's in handbook.pdf?", "summary", "handbook.pdf", ""),
    ("What does the employee handbook say?", "summary", "the employee handbook", ""),
    ("tl;dr report.docx", "summary", "report.docx", ""),
]

NEGATIVES = [
    # about the documents' content, with a folder word in them
    "How many files can tar append at once?",
    "What files does git ignore by default?",
    "How many files are there in the Linux kernel?",
    "How many files does a FAT12 floppy disk hold?",
    "What files are needed to build bash?",
    "Which file format does Microsoft Word use?",
    "What document ended the Thirty Years' War?",
    "Which documents did Edward Snowden leak?",
    "Which documents are required for a US passport?",
    "How many documents were signed at Yalta?",
    "How many manuals did IBM print for the System/360?",
    "What notes are in a C major chord?",
    "Which notes does a flute play?",
    "What is the file system used by Windows 95?",
    "Which of the two files is bigger, a.txt or b.txt?",
    "What does the Constitution say?",
    "What is the manual transmission?",
    # one fact, two facts, comparisons
    "Who wrote GNU bc?",
    "What is the bug address for GNU ed?",
    "What is tar about?",
    "What is in a Big Mac?",
    "What is the version and date of bzip2?",
    "Were Scott Derrickson and Ed Wood of the same nationality?",
    "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
    "Which band released the album Files?",
    "List the presidents of France.",
    "Show me the way to Amarillo",
    "When does the Puffin Room open?",
]


@pytest.mark.parametrize("question,kind,topic,file_kind", POSITIVES)
def test_questions_over_the_folder_are_recognised(question, kind, topic, file_kind):
    ask = folder_question(question)
    assert ask is not None, question
    assert (ask.kind, ask.topic, ask.file_kind) == (kind, topic, file_kind)
    assert ask.question == question


# Narrowed to a folder by name, and followed by a short request: wordings written for the
# recogniser's design from the tune half's folder (lab/personal_docs), none of them a report question.
PLACED = [
    ("How many PDFs are in my manuals folder?", "count-files", "", "pdf", "manuals"),
    ("How many text files are there in the manuals directory?", "count-files", "", "text", "manuals"),
    ("How many Word documents do I have in the work folder?", "count-files", "", "word", "work"),
    ("Which files in my notes folder mention bisect?", "which", "bisect", "", "notes"),
    ("Which of my files under notes/ mention Timsort?", "which", "Timsort", "", "notes"),
    ("How many documents in my python-docs folder mention JSON?", "count", "JSON", "", "python-docs"),
    ("List the web pages in my python-docs folder", "list-files", "", "html", "python-docs"),
    ("Summarise notes/sorting.md. Keep it short.", "summary", "notes/sorting.md", "", ""),
    ("What is manuals/watch.txt about? Two sentences, please.", "summary", "manuals/watch.txt", "", ""),
    ("Which of my files mention Ascii85? Just the names.", "which", "Ascii85", "", ""),
]


@pytest.mark.parametrize("question,kind,topic,file_kind,place", PLACED)
def test_a_folder_named_in_the_question_and_a_request_after_it(question, kind, topic, file_kind, place):
    ask = folder_question(question)
    assert ask is not None, question
    assert (ask.kind, ask.topic, ask.file_kind, ask.place) == (kind, topic, file_kind, place)


@pytest.mark.parametrize("question", [
    "What files are in the tar archive? List them.",  # the first sentence is about content
    "How many files are there in the Linux kernel? Roughly.",
    "Who wrote GNU bc? Short answer please.",
])
def test_a_request_after_a_content_question_leaves_it_to_the_pipeline(question):
    assert folder_question(question) is None


@pytest.mark.parametrize("question", NEGATIVES)
def test_questions_about_content_are_left_to_the_pipeline(question):
    assert folder_question(question) is None


def test_no_hotpotqa_training_question_is_taken_for_a_folder_question():
    data = Path(__file__).resolve().parents[3] / "shared/data/hotpotqa/hotpotqa_train_100.hipporag.json"
    if not data.is_file():
        pytest.skip("the HotpotQA training sample is not on this machine")
    questions = [row["question"] for row in json.loads(data.read_text(encoding="utf-8"))]
    assert len(questions) == 100
    assert [q for q in questions if folder_question(q) is not None] == []


HANDBOOK = "\n\n".join(
    f"## {name}\n\n" + " ".join(f"{name.lower()}{i} rule applies to every staff member." for i in range(24))
    for name in ("Holidays", "Expenses", "Travel", "Security"))


@pytest.fixture
def folder_index(tmp_path):
    docs = tmp_path / "docs"
    write(docs, "a.txt", "Use GNU tar to pack files. tar appends archives with -r.\n")
    write(docs, "notes/backup.md", "# Backups\n\nThe nightly backup script calls tar with gzip.\n")
    write(docs, "c.txt", "Herons wade in the marsh at dawn.\n")
    write(docs, "guide.html", "<html><head><title>Garden guide</title></head><body><p>Plant reeds by the pond."
                              "</p></body></html>")
    write(docs, "staff/handbook.md", "# Staff handbook\n\n" + HANDBOOK + "\n")
    store = IndexStore.open_or_create(tmp_path / "index", HashEmbedder.model_id, HashEmbedder.dim)
    embedder = HashEmbedder()
    index_folder(store, embedder, docs)
    return HybridRetriever(store, embedder)


class FolderFirst(Strategy):
    """The default's wiring in small: a folder question answered from the index, else 'unknown'."""

    name = "folder-first"

    def run(self, question, ctx):
        ask = folder_question(question)
        answer = yield from answer_folder_question(ask, ctx, parent=None) if ask else iter(())
        return answer if answer is not None else Result("unknown", resolved_by="passages")


def ask(question, retriever, reader=None, **settings):
    reader = reader or FakeReader(lambda prompt: "A summary.")
    events = list(run_question(question, FolderFirst(), make_context(reader=reader, retriever=retriever, **settings)))
    return events, events[-1], reader


def test_which_files_mention_x_lists_exactly_those_files_each_cited(folder_index):
    events, answer, reader = ask("Which of my files mention tar?", folder_index)
    assert isinstance(answer, Answer) and answer.resolved_by == "folder"
    assert answer.text == "2 of your 5 files mention “tar”: a.txt and notes/backup.md."
    assert answer.grounding == "supported"
    assert [p.path for p in answer.citations] == ["a.txt", "notes/backup.md"]
    assert all("tar" in p.text.lower().split() for p in answer.citations)
    assert answer.marked_text == "2 of your 5 files mention “tar”: a.txt [1] and notes/backup.md [2]."
    assert reader.stats.calls == 0 and answer.counts["retrievals"] == 1
    detail = next(e for e in events if isinstance(e, FolderQuestion))
    assert detail.files == ["a.txt", "notes/backup.md"] and detail.topic == "tar" and detail.total == 5
    assert event_from_dict(json.loads(json.dumps(detail.to_dict()))) == detail  # --json and records
    narrator = StepNarrator()
    lines = [narrator.line(e) for e in events]
    assert "Searched all 5 of your files for “tar”: 2 mention it (a.txt, notes/backup.md)" in lines
    assert "from what the index knows of your files" in lines[-1]


def test_how_many_and_none_and_a_yes_no_question_over_the_files(folder_index):
    _, answer, _ = ask("How many documents mention herons?", folder_index)
    assert answer.text == "1 of your 5 files mentions “herons”: c.txt."
    assert [p.path for p in answer.citations] == ["c.txt"]
    _, answer, _ = ask("Do any of my files mention Perl?", folder_index)
    assert answer.text == "No: none of your 5 files mentions “Perl”."
    assert answer.citations == [] and answer.grounding == ""
    _, answer, _ = ask("Do any of my files mention gzip?", folder_index)
    assert answer.text.startswith("Yes: 1 of your 5 files mentions “gzip”: notes/backup.md")


def test_a_topic_of_stop_words_only_is_found_as_written(folder_index):
    _, answer, _ = ask("Which of my files mention “in the”?", folder_index)
    assert answer.text == "1 of your 5 files mentions “in the”: c.txt."
    assert [p.path for p in answer.citations] == ["c.txt"]


def test_a_hidden_passage_takes_its_file_out_of_the_answer(folder_index):
    events = list(run_question("Which of my files mention tar?", FolderFirst(), make_context(
        reader=FakeReader(), retriever=folder_index)))
    ctx = make_context(retriever=SupportHidden(folder_index, lambda p: p.path == "a.txt"))  # eval --drop-support's
    hidden = list(run_question("Which of my files mention tar?", FolderFirst(), ctx))
    assert [p.path for p in events[-1].citations] == ["a.txt", "notes/backup.md"]
    assert [p.path for p in hidden[-1].citations] == ["notes/backup.md"]


def test_files_counted_and_listed_by_kind_from_the_document_list(folder_index):
    _, answer, _ = ask("How many markdown files do I have?", folder_index)
    assert answer.text == "2 of your 5 files are Markdown files: notes/backup.md and staff/handbook.md."
    _, answer, _ = ask("How many PDFs do I have?", folder_index)
    assert answer.text == "None of your 5 files is a PDF."
    _, answer, _ = ask("How many files are there?", folder_index)
    assert answer.text == "Your index holds 5 files: 2 text files, 2 Markdown files and 1 web page."
    _, answer, _ = ask("List my files", folder_index)
    assert answer.text == ("Your index holds 5 files: a.txt, c.txt, guide.html, notes/backup.md and "
                           "staff/handbook.md.")
    assert answer.resolved_by == "folder" and answer.citations == []


@pytest.mark.parametrize("question,text", [
    ("How many Markdown files are in my notes folder?", "1 of your 1 files in notes/ is a Markdown file: notes/backup.md."),
    ("Which of my files in the staff folder mention tar?", "None of your files in staff/ mentions “tar”."),
    ("Which files under notes/ mention tar?", "1 of your files in notes/ mentions “tar”: notes/backup.md."),
    ("How many files are in my photos folder?", "None of your indexed files is in a folder named “photos”."),
])
def test_a_folder_named_narrows_the_count_the_listing_and_the_search(folder_index, question, text):
    _, answer, _ = ask(question, folder_index)
    assert answer.text == text and answer.resolved_by == "folder"
    assert [p.path for p in answer.citations] == (["notes/backup.md"] if "mentions “tar”:" in text else [])


def handbook_rows(retriever) -> list[dict]:
    rows = retriever.store.passages.to_arrow().to_pylist()
    return [r for r in sorted(rows, key=lambda r: r["ordinal"]) if r["path"] == "staff/handbook.md"]


def handbook_passages(retriever) -> list[str]:
    return [r["text"] for r in handbook_rows(retriever)]


def handbook_ids(retriever) -> list[str]:
    return [r["id"] for r in handbook_rows(retriever)]


@pytest.mark.parametrize("question", ["Summarise the staff handbook", "Summarize handbook.md",
                                      "What is staff/handbook.md about?", "Give me a summary of the file named handbook"])
def test_summarise_file_reads_that_file_through_and_only_it(folder_index, question):
    events, answer, reader = ask(question, folder_index)
    assert reader.stats.calls == 1
    prompt = reader.prompts[0][-1]["content"]
    texts = handbook_passages(folder_index)
    assert len(texts) >= 3
    positions = [prompt.index(t) for t in texts]
    assert positions == sorted(positions)  # every passage of it, in reading order
    for other in ("tar appends", "Herons wade", "Plant reeds", "nightly backup"):
        assert other not in prompt
    assert answer.text == "A summary." and answer.resolved_by == "folder"
    assert answer.passages_read == handbook_ids(folder_index)  # what it rests on: that file, in order
    detail = next(e for e in events if isinstance(e, FolderQuestion))
    assert detail.files == ["staff/handbook.md"] and detail.passages == len(texts)


def test_a_summary_is_cited_sentence_by_sentence_to_the_file_it_summarises(folder_index):
    reader = FakeReader(lambda prompt: "The staff handbook sets the holidays0 rule. It sets the security23 rule too.")
    _, answer, _ = ask("Summarise the staff handbook", folder_index, reader=reader)
    texts = handbook_passages(folder_index)
    assert answer.grounding == "supported" and answer.resolved_by == "folder"
    assert [p.text for p in answer.citations] == [next(t for t in texts if "holidays0" in t),
                                                  next(t for t in texts if "security23" in t)]
    assert answer.marked_text == "The staff handbook sets the holidays0 rule. [1] It sets the security23 rule too. [2]"
    reader = FakeReader(lambda prompt: "The staff handbook sets the holidays0 rule. Herons fly south in winter.")
    _, answer, _ = ask("Summarise the staff handbook", folder_index, reader=reader)
    assert answer.grounding == ""  # a sentence the file does not hold: not presented as supported


class WordCountingReader(FakeReader):
    """One token per word, in a context of n_ctx tokens."""

    def __init__(self, n_ctx):
        super().__init__(lambda prompt: "A summary.")
        self.n_ctx = n_ctx

    def prompt_tokens(self, messages):
        return " ".join(m["content"] for m in messages).split()


def test_a_long_file_is_read_from_its_start_as_far_as_the_context_allows(folder_index):
    texts = handbook_passages(folder_index)
    reader = WordCountingReader(n_ctx=600)
    events, answer, _ = ask("Summarise handbook.md", folder_index, reader=reader, n_ctx=600)
    prompt = reader.prompts[0][-1]["content"]
    read = [t for t in texts if t in prompt]
    assert 0 < len(read) < len(texts) and read == texts[:len(read)]
    assert len(reader.prompt_tokens(reader.prompts[0])) <= 600 - 320
    notes = [e.message for e in events if isinstance(e, Note)]
    assert f"read {len(read)} of the {len(texts)} passages of staff/handbook.md: what fits the reader's context" in notes


def test_a_file_not_in_the_index_is_a_note_and_none(folder_index):
    ctx = make_context(retriever=folder_index)
    run = answer_folder_question(folder_question("Summarise the tax return"), ctx, parent=3)
    events = []
    with pytest.raises(StopIteration) as stop:
        while True:
            events.append(next(run))
    assert stop.value.value is None and ctx.reader.stats.calls == 0
    assert [type(e) for e in events] == [Note] and events[0].parent == 3
    assert "no file in your index is named like “the tax return”" in events[0].message


def test_a_search_without_the_index_behind_it_is_a_note_and_none():
    ctx = make_context(retriever=FakeRetriever({"p": "tar"}))
    run = answer_folder_question(folder_question("Which files mention tar?"), ctx)
    note = next(run)
    with pytest.raises(StopIteration) as stop:
        next(run)
    assert isinstance(note, Note) and stop.value.value is None


def test_a_folder_answer_carries_its_citations_and_label():
    cited = [Passage(id="x", text="tar", path="a.txt")]
    from assistant.grounding.citations import Attribution

    result = FolderResult("1 of your files", citations=[], resolved_by="folder",
                          attribution=Attribution(cited=cited, marked_text="m", grounding="supported"))
    events = list(run_question("q?", _Returning(result), make_context()))
    assert events[-1].citations == cited and events[-1].grounding == "supported" and events[-1].marked_text == "m"


class _Returning(Strategy):
    name = "returning"
    needs_index = False

    def __init__(self, result):
        super().__init__()
        self.result = result

    def run(self, question, ctx):
        return self.result
        yield


def test_the_default_strategy_answers_a_folder_question_from_the_index(folder_index):
    """The default routes a question over the folder to the index's files on a person's own files,
    with no reader call; the same question asked of a dump-like index goes the usual way."""
    assert folder_index.holds_documents
    events = list(run_question("Which of my files mention tar?", "default",
                               make_context(reader=FakeReader(lambda prompt: "unknown"), retriever=folder_index)))
    answer = events[-1]
    assert answer.resolved_by == "folder" and answer.grounding == "supported"
    assert [p.path for p in answer.citations] == ["a.txt", "notes/backup.md"]
    assert answer.counts["reader_calls"] == 0
    folder_index.holds_documents = False
    events = list(run_question("Which of my files mention tar?", "default",
                               make_context(reader=FakeReader(lambda prompt: "unknown"), retriever=folder_index)))
    assert events[-1].resolved_by != "folder"


def test_the_retriever_knows_its_files_one_word_names(folder_index):
    """What grounding.documents.files_named reads: "backup" of notes/backup.md, not "staff" of
    the folder staff/ nor a name of two words."""
    from assistant.retrieval.index_files import one_word_names_of

    names = one_word_names_of(folder_index)
    assert names() == {"backup", "guide", "handbook"}  # a.txt and c.txt: one letter
    assert folder_index.one_word_names is names()  # read once
    assert one_word_names_of(object()) is None  # a retriever without an index
