"""The grounding check: the new user's cases (issue 30), numbers written two ways, a multi-hop
answer citing its bridge, labels for memory and "not in your documents", and eval's citation
columns and --drop-support with fake models."""
import json

import pytest

from index_builder.datasets import load_dataset
from research.evaluation.harness import RunPlan, run_strategy
from research.evaluation.results import ResultsFile
from research.evaluation.support import citation_record
from research.evaluation.trust import trust, trust_table
from assistant.events.core import Passage
from assistant.grounding.verdict import MEMORY, SUPPORTED, UNSUPPORTED, GroundingRule, ground
from assistant.grounding.features import numbers_normalised, stemmed_words
from models.config import Settings

from helpers.fakes import FakeJudge, FakeReader, FakeRetriever, make_context

FOLDER = [
    Passage("heron", "Project Heron builds birdwatching kits for schools. Project Heron is led by Mira Okafor.",
            "Project Heron", path="projects/heron.md"),
    Passage("otter", "Project Otter films kelp forests along the coast. Project Otter is led by Tomas Lindqvist.",
            "Project Otter", path="projects/otter.md"),
    Passage("handbook", "The Riverside Dental Clinic is at 8 Mill Road. The staff room holds twelve people. "
            "A fire drill is held every October.", "Staff handbook", path="handbook.md"),
    Passage("bikes", "The bike shed was repainted on 12 May 2025 and holds bikes for staff.", "Bikes",
            path="bikes.txt"),
]


def check(question, answer, passages=FOLDER, from_memory=False, **rule):
    return ground(answer, question, passages, GroundingRule(**rule), from_memory=from_memory)


def test_numbers_dates_and_number_words_are_one_form():
    assert stemmed_words("holds twelve people") == stemmed_words("holds 12 people")
    assert numbers_normalised("on the 15th, 1,000 people") == "on the 15, 1000 people"


@pytest.mark.parametrize("question, wrong", [
    ("Who leads Project Otter?", "Mira Okafor"),  # a real name, from the Heron page
    ("Where is the Riverside Dental Clinic?", "Dundee, Scotland"),
    ("When is the fire drill?", "The fire drill is on October 15th, 2022."),
    ("What is the capital of Australia?", "Canberra."),
])
def test_the_new_users_wrong_answers_are_not_presented_as_supported(question, wrong):
    attribution = check(question, wrong)
    assert attribution.grounding == UNSUPPORTED and attribution.cited == []
    assert attribution.marked_text.startswith("Not in your documents") and "[1]" not in attribution.marked_text
    assert wrong in attribution.marked_text  # the guess is still shown, marked unsupported
    assert attribution.closest  # with the closest passages


@pytest.mark.parametrize("question, right, source", [
    ("Who leads Project Otter?", "Tomas Lindqvist", "otter"),
    ("Where is the Riverside Dental Clinic?", "8 Mill Road", "handbook"),
    ("How many people does the staff room hold?", "The staff room holds 12 people.", "handbook"),
])
def test_right_answers_cite_the_passage_that_holds_them(question, right, source):
    attribution = check(question, right)
    assert attribution.grounding == SUPPORTED
    assert [p.id for p in attribution.cited] == [source]  # not the bikes file for its "12"
    assert attribution.marked_text.endswith("[1]")


def test_a_multi_hop_answer_cites_its_bridge_too():
    passages = [
        Passage("film", "Blue Harbor is a 1998 drama film directed by Anne Marceau, set in a fishing town.",
                "Blue Harbor"),
        Passage("director", "Anne Marceau is a film director and writer. She was born in Lyon in 1961.",
                "Anne Marceau"),
        Passage("other", "Green Valley is a 2001 comedy film directed by Paul Brun, born in Nantes.", "Green Valley"),
    ]
    attribution = ground("Lyon", "In which city was the director of Blue Harbor born?", passages)
    assert attribution.grounding == SUPPORTED
    assert {p.id for p in attribution.cited} == {"director", "film"}


def test_an_answer_resting_on_a_passage_about_something_else_is_not_presented_as_supported():
    """The bridge hidden (as --drop-support hides it): the answer's sentence is in a passage about
    another film, which holds little of the question; the check alone would cite it."""
    passages = [
        Passage("other", "Green Valley is a 2001 comedy film directed by Paul Brun, who was born in Lyon.",
                "Green Valley"),
        Passage("town", "Lyon is a city in France on the Rhone.", "Lyon"),
    ]
    question, answer = "In which city was the director of Blue Harbor born?", "Lyon"
    assert check(question, answer, passages).grounding == SUPPORTED
    for rule in ({"coverage": 0.7}, {"names": 0.75}, {"coverage": 0.5, "names": 0.75}):
        hidden = check(question, answer, passages, **rule)
        assert hidden.grounding == UNSUPPORTED and hidden.cited == [], rule
    with_bridge = passages + [Passage("film", "Blue Harbor is a 1998 drama film directed by Paul Brun.",
                                      "Blue Harbor")]
    assert check(question, answer, with_bridge, coverage=0.5, names=0.75).grounding == SUPPORTED


def test_question_coverage_counts_the_questions_own_words_in_the_cited_passages():
    from assistant.grounding.rules import question_coverage
    from assistant.grounding.features import Text

    question = "In which city was the director of Blue Harbor born?"  # city, director, blue, harbor, born
    film = Text.of("Blue Harbor is a 1998 drama film directed by Paul Brun.", "Blue Harbor")
    person = Text.of("Paul Brun is a director, born in Lyon, a city in France.", "Paul Brun")
    assert question_coverage(question, []) == 0.0
    assert question_coverage(question, [film]) == pytest.approx(3 / 5)  # "directed" holds "director"
    assert question_coverage(question, [film, person]) == pytest.approx(1.0)
    assert question_coverage("Is it?", [film]) == 1.0  # nothing of its own to cover
    # a word's ending aside: "Portuguese" in the question, "Portugal" in the passage
    assert question_coverage("Which Portuguese city?", [Text.of("Porto is a city in Portugal.")]) == 1.0


def test_names_coverage_wants_the_questions_names_and_all_the_answers():
    from assistant.grounding.rules import SentenceSupport, names_coverage, rests_on
    from assistant.grounding.features import Text, name_words

    assert name_words("Who leads Project Otter, since 2019?") == ["project", "otter", "2019"]
    heron, otter = (Text.of(p.text, p.title) for p in FOLDER[:2])
    texts, question = [heron, otter], "Who leads Project Otter?"

    def coverage(sentence, passages, claims=1, asked=question, texts=texts):
        support = SentenceSupport(sentence, passages, 0.9, claims)
        return names_coverage(name_words(asked), [(sentence, rests_on(support, texts, name_words(asked)))], texts)

    assert coverage("Tomas Lindqvist", [1]) == 1.0
    assert coverage("Mira Okafor", [0]) == 0.5  # Heron's page: "Project", not "Otter"
    assert coverage("Who leads it?", [0], asked="Who leads it?") == 1.0  # no name asked, none stated
    # a sentence that mixes the two pages names what the passage holding its claim does not, and
    # Otter's page cited beside it as a bridge does not make it whole: neither names the other
    assert coverage("Project Otter is led by Mira Okafor.", [0, 1]) == 0.0
    # a bridge that names the claim passage's title does count for the sentence
    bridge = Text.of("Project Otter borrows its lead from Project Heron.", "Project Otter")
    assert coverage("Project Otter is led by Mira Okafor.", [0, 1], texts=[heron, bridge]) == 1.0


def test_a_stopword_opening_a_question_is_no_name():
    """"Does" stems to "doe", no stopword: as a name it was missing from every page, so a right yes
    about Project Otter's page was labelled "not in your documents"."""
    from assistant.grounding.features import name_words

    assert name_words("Does Project Otter film kelp forests?") == ["project", "otter"]
    assert name_words("This American film was directed by whom?") == ["american"]
    assert name_words("Doe v. Wade was decided when?") == ["doe", "wade"]  # a name that opens the text stays
    rule = dict(coverage=0.65, names=0.75)
    right = check("Does Project Otter film kelp forests?", "Yes", **rule)
    assert right.grounding == SUPPORTED and [p.id for p in right.cited] == ["otter"]
    for other in ("Falcon", "Heron"):  # no page of that project says so
        assert check(f"Does Project {other} film kelp forests?", "Yes", **rule).grounding == UNSUPPORTED


def test_a_claim_mixing_two_pages_is_not_presented_as_supported_with_the_names_rule():
    """SmolLM2's answer in the new user's trial: Otter's question, Heron's leader; every word of
    the claim but "Otter" is on Heron's page, so the claim trees alone find it supported."""
    question, mixed = "Who leads Project Otter?", "Project Otter is led by the marine engineer Mira Okafor."
    passages = [Passage("heron", "Project Heron builds a solar-powered weather buoy. The project is led by the "
                        "marine engineer Mira Okafor, who joined in 2019.", "Project Heron"), FOLDER[1]]
    assert check(question, mixed, passages, names=0.75).grounding == UNSUPPORTED
    right = check(question, "Project Otter is led by Tomas Lindqvist.", passages, names=0.75)
    assert right.grounding == SUPPORTED and [p.id for p in right.cited] == ["otter"]


def test_unknown_and_memory_answers_are_labelled_not_cited():
    unknown = check("Who leads Project Otter?", "unknown")
    assert unknown.grounding == UNSUPPORTED and unknown.marked_text == \
        "Not in your documents: the indexed documents do not answer this."
    memory = check("What is the capital of Australia?", "Canberra", from_memory=True)
    assert memory.grounding == MEMORY and memory.cited == [] and memory.marked_text.startswith("From the reader's memory")
    plain = check("Who leads Project Otter?", "Mira Okafor", honest=False)
    assert plain.marked_text == "Mira Okafor" and plain.cited == []


def _hotpot(tmp_path):
    rows = [{"_id": "q1", "question": "Who leads Project Heron?", "answer": "Mira Okafor",
             "context": [["Project Heron", ["Project Heron is led by Mira Okafor."]],
                         ["Project Otter", ["Project Otter is led by Tomas Lindqvist."]]],
             "supporting_facts": [["Project Heron", 0]]}]
    path = tmp_path / "hotpot.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_citation_record_matches_cited_passages_to_gold_paragraphs(tmp_path):
    example = load_dataset(_hotpot(tmp_path))[0]
    heron = Passage("p1", "Project Heron is led by Mira Okafor.", "Project Heron")
    otter = Passage("p2", "Project Otter is led by Tomas Lindqvist.", "Project Otter")
    assert citation_record(example, [heron]) == {"cited_gold": [True], "support_cited": True}
    assert citation_record(example, [otter]) == {"cited_gold": [False], "support_cited": False}
    records = [{"scores": {"em": 1.0}, "grounding": "supported", "cited_gold": [True, False], "support_cited": True},
               {"scores": {"em": 0.0}, "grounding": "not in your documents", "cited_gold": [], "support_cited": False}]
    t = trust("default", records)
    assert (t.citation_precision, t.support_recall, t.support_recall_right) == (50.0, 50.0, 100.0)
    assert t.by_label == {"supported": (1, 100.0), "not in your documents": (1, 0.0)}
    assert "| default | 2 | 2 | 50.0 | 50.0 | 100.0 | 50.0 | 100.0 | 50.0 | 0.0 |" in trust_table([t])


def test_drop_support_hides_each_questions_own_paragraphs(tmp_path):
    dataset = _hotpot(tmp_path)
    retrievers = []

    def factory(settings, strategy):
        retriever = FakeRetriever({"Project Heron": "Project Heron is led by Mira Okafor.",
                                   "Project Otter": "Project Otter is led by Tomas Lindqvist."})
        retrievers.append(retriever)
        return make_context(reader=FakeReader(lambda prompt: "Mira Okafor"), judge=FakeJudge(), retriever=retriever)

    for drop in (False, True):
        plan = RunPlan(dataset=dataset, out_dir=tmp_path / "out", settings=Settings(), corpus="idx",
                       reader_name="fake", drop_support=drop)
        run_strategy("default:self_knowledge=false,refine=false,relevance=false,hop=never",
                     load_dataset(dataset), plan, context_factory=factory)
    normal, dropped = sorted((tmp_path / "out").glob("*.jsonl"), key=lambda p: "drop" in p.name)
    assert "drop-support" in dropped.name
    normal, dropped = ResultsFile(normal).records["q1"], ResultsFile(dropped).records["q1"]
    assert normal["grounding"] == "supported" and normal["citations"] == ["Project Heron"]
    assert normal["support_cited"] is True and normal["cited_gold"] == [True]
    assert dropped["grounding"] == "not in your documents" and dropped["citations"] == []
    # what the reader read, with its texts: the check can be replayed on exactly that (lab/grounding_replay)
    assert [(p["title"], p["text"]) for p in normal["read"]] == [
        ("Project Heron", "Project Heron is led by Mira Okafor."), ("Project Otter", "Project Otter is led by Tomas Lindqvist.")]
    assert [p["title"] for p in dropped["read"]] == ["Project Otter"]


def test_the_demo_reader_notice_is_said_once_and_only_for_the_bundled_reader(tmp_path):
    from assistant.demo_notice import demo_reader_notice

    settings = Settings(data_dir=tmp_path / "data")
    notice = demo_reader_notice(settings)
    assert notice and "assistant models pull" in notice
    assert demo_reader_notice(settings) is None  # once
    assert demo_reader_notice(Settings(data_dir=tmp_path / "other", reader=tmp_path / "real.gguf")) is None


def test_an_unlinked_bridge_does_not_lend_its_name_unless_the_answer_compares_the_questions_names():
    """Qwen's answer in examples/docs: "What is the budget of Project Otter?" - "240,000 pounds",
    Heron's budget, with Otter's page cited beside it as a bridge (it holds "Otter")."""
    heron = Passage("heron", "Project Heron is funded by a grant of 240,000 pounds from the Scottish Marine "
                    "Innovation Fund.", "Project Heron")
    otter = Passage("otter", "Project Otter is an underwater camera sled for surveying kelp forests. The Otter "
                    "team meets every Thursday.", "Project Otter")
    question = "What is the budget of Project Otter?"
    assert check(question, "240,000 pounds", [heron, otter], coverage=0.5, names=0.75).grounding == UNSUPPORTED
    # a comparison rests on two pages that need not name each other
    older = [Passage("a", "Annie Morton (born October 8, 1970) is an American model.", "Annie Morton"),
             Passage("t", "Terry Richardson (born August 14, 1965) is an American fashion photographer.",
                     "Terry Richardson")]
    compared = check("Who is older, Annie Morton or Terry Richardson?", "Terry Richardson", older,
                     coverage=0.5, names=0.75)
    assert compared.grounding == SUPPORTED and {p.id for p in compared.cited} == {"a", "t"}


def test_a_word_is_held_with_its_ending_aside_but_a_number_only_as_it_is():
    from assistant.grounding.features import word_held_in

    assert word_held_in("portuguese", {"portugal"}) and word_held_in("director", {"directed"})
    assert not word_held_in("1234567", {"1234599"}) and word_held_in("1234567", {"1234567"})
    assert not word_held_in("film", {"filmed"})  # a short word must be there whole


def test_an_answer_that_only_restates_the_question_is_not_presented_as_supported():
    """Qwen's answers to training questions: the host's show given as the series he later featured
    in; the names rule labels such an answer "not in your documents" unless the question offers a choice."""
    from assistant.grounding.rules import restates_question

    show = Passage("show", "The Joe Schmo Show is an American reality television series hosted by Ralph Garman, "
                   "an American actor and radio host.", "The Joe Schmo Show")
    question = 'Which travel parody series featured the host of "The Joe Schmo Show"?'
    assert restates_question("The Joe Schmo Show", question)
    assert check(question, "The Joe Schmo Show", [show], names=0.75).grounding == UNSUPPORTED
    assert not restates_question("Terry Richardson", "Who is older, Annie Morton or Terry Richardson?")
    # the question's words, but not a phrase of it: a new answer
    assert not restates_question("Argand lamp", "This type of lamp was patented in 1780 by Aimé Argand?")
    assert not restates_question("yes", "Is the Joe Schmo Show a series?")


def test_a_page_sharing_nothing_with_the_question_or_its_support_is_no_bridge():
    """The hop trees read each candidate beside the others read with it; a user's folder holds pages
    about other things, and one of them being "the best of a bad lot" must not make it a bridge."""
    from assistant.grounding.verdict import shipped_trees
    from assistant.grounding.features import Text, hop_rows, name_words

    question, claim = "How many people does the staff room hold?", "The staff room holds 12 people."
    handbook, *others = (Text.of(p.text, p.title) for p in (FOLDER[2], FOLDER[0], FOLDER[1], FOLDER[3]))
    trees = shipped_trees()
    scores = trees.score("hop", hop_rows(Text.of(question), Text.of(claim), others, [handbook], name_words(question)))
    assert max(scores) < trees.thresholds["hop"]


def test_a_title_links_pages_as_other_pages_write_it():
    """A link between two pages is one naming the other's title: every word of it, without
    Wikipedia's "(film)" after it (a title with a stopword never matched before)."""
    from assistant.grounding.features import Text, linked

    film = Text.of("The Fault in Our Stars is a 2014 American romantic drama film.", "The Fault in Our Stars (film)")
    actor = Text.of("Nat Wolff starred in The Fault in Our Stars and Paper Towns.", "Nat Wolff")
    isles = Text.of("The Kingdom of the Isles covered over 8,300 km2.", "Kingdom of the Isles")
    lord = Text.of("Aonghus Mór was Lord of Islay and ruled in the Kingdom of the Isles.", "Aonghus Mór")
    assert linked(actor, film) and linked(film, actor)
    assert linked(lord, isles)
    assert not linked(film, isles)


def test_a_title_with_a_place_after_a_comma_links_as_written():
    """"Stanley Park, Blackpool" is written "Stanley Park" on the page naming it; a year or a
    lower-case word after the comma is part of the title ("United States presidential election, 2016")."""
    from assistant.grounding.features import Text, linked, written_name

    park = Text.of("Stanley Park was designed by Thomas Mawson.", "Stanley Park, Blackpool")
    gardens = Text.of("Salisbury Woodland Gardens link Blackpool Zoo with Stanley Park.", "Salisbury Woodland Gardens")
    other = Text.of("The park was opened in 1926 near the zoo.", "Blackpool Zoo")
    assert linked(gardens, park) and not linked(other, park)
    assert written_name("Casino, New South Wales") == "casino"
    assert written_name("United States presidential election, 2016").endswith("2016")
    assert written_name("Nat Wolff (actor)") == "nat wolff"


COMPOSER = Passage("composer", "Nat Wolff is an American actor and composer. He wrote the songs of the Nickelodeon "
                   "series The Naked Brothers Band and starred in The Fault in Our Stars and Paper Towns.", "Nat Wolff")
FILM = Passage("film", "The Fault in Our Stars is a 2014 American romantic drama film directed by Josh Boone.",
               "The Fault in Our Stars (film)")
ALBUM = Passage("album", "The Naked Brothers Band is the debut album of the band from the film and series The Naked "
                "Brothers Band; its composer was Nat Wolff.", "The Naked Brothers Band (album)")
OTHER_FILM = Passage("other", "Paper Towns is a 2015 American mystery film, based on the novel by John Green.",
                     "Paper Towns (film)")


def test_a_short_answer_rests_on_the_page_stating_it_and_the_bridge_naming_that_page():
    """The claim trees doubt "2014" on the film's page, which holds few of the question's words
    (they sit on the composer's page naming the film): the page stating the answer, completed by a
    linked bridge, supports it. Without the bridge, or with a page that nothing links to, nothing does."""
    question = 'What year was the film that starred the composer for "The Naked Brothers Band"?'
    answer = check(question, "2014", [COMPOSER, ALBUM, FILM, OTHER_FILM], coverage=0.5, names=0.75)
    assert answer.grounding == SUPPORTED
    assert {p.id for p in answer.cited} == {"composer", "film"}
    assert check(question, "2014", [ALBUM, FILM, OTHER_FILM], coverage=0.5, names=0.75).grounding == UNSUPPORTED
    unlinked = Passage("film", "Blue Harbor is a 2014 drama film directed by Anne Marceau.", "Blue Harbor")
    assert check(question, "2014", [COMPOSER, ALBUM, unlinked], coverage=0.5, names=0.75).grounding == UNSUPPORTED


def test_names_and_words_hold_letters_of_any_script():
    """"Öresund" is a name (the question's capitals were A-Z only) and the same word as "Øresund"
    (Unicode does not split ø into o and an accent)."""
    from assistant.grounding.citations import text_for_matching
    from assistant.grounding.features import name_phrases, name_words

    assert "oresund" in name_words("How long is the bridge in the Öresund Region?")
    assert text_for_matching("Øresund Bridge") == text_for_matching("Öresund Bridge") == "oresund bridge"
    assert "lodz kaliska" in name_phrases("trains leave Łódź Kaliska station")


def test_a_second_bridge_must_extend_the_chain_not_sit_beside_the_first():
    """Two films naming their director's page both look like the bridge; the second, scored given
    the first, adds nothing (a sibling, not the next hop): the answer cites its page and one bridge."""
    passages = [
        Passage("ayer", "David Ayer is an American film director and screenwriter. He wrote Training Day, and "
                "wrote and directed Harsh Times, End of Watch, Fury and Suicide Squad.", "David Ayer"),
        Passage("harsh", "Harsh Times is a 2005 American crime film set in South Los Angeles, written and "
                "directed by David Ayer.", "Harsh Times"),
        Passage("watch", "End of Watch is a 2012 American police film set in South Central Los Angeles, written "
                "and directed by David Ayer.", "End of Watch"),
        Passage("fury", "Fury is a 2014 war film written and directed by David Ayer, starring Brad Pitt.",
                "Fury (2014 film)"),
    ]
    question = ('This American crime film set in South Los Angeles was written and directed by the director '
                'of "Training Day" and what other film?')
    answer = check(question, "Suicide Squad", passages, coverage=0.5, names=0.75)
    assert answer.grounding == SUPPORTED
    assert [p.id for p in answer.cited] == ["ayer", "harsh"]
