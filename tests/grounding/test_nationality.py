"""A yes/no about two things' nationality decided by their pages' openings (assistant/checks/nationality.py):
which questions ask it, how a page's nationality is read, when it abstains, and the default
pipeline's step, trace, eval record and option."""
import pytest
from helpers.answer_checks import check_seen
from helpers.fakes import FakeReader, FakeRetriever, make_context

from assistant.events.core import Answer, Passage
from assistant.checks.nationality import asked_of, decide, named_pages, nations_in, page_nations, yes_no_to_decide
from assistant.runner import run_question
from assistant.presentation.step_text import resolved_phrase
from assistant.strategies import make_strategy


@pytest.mark.parametrize("question, asked", [
    ("Were Scott Derrickson and Ed Wood of the same nationality?", "same"),
    ("Are Parents and Madame Figaro published in the same country?", "same"),
    ("Are Local H and For Against both from the United States?", "American"),
    ("Were the bands Skin Yard and Ostava from the U.S.?", "American"),
    ("Are both Jim McBride and Neil Jordan American?", "American"),
    ("Are both Adolfo Bioy Casares and James Norman Hall Argentinian authors?", "Argentine"),
    ("Are Daryl Hall and Gerry Marsden both musicians?", None),
    ("Who is the American director of Sinister?", None),  # no yes/no
    ("Do both films have the directors from the same country?", None),  # the directors' pages
])
def test_which_questions_ask_a_nationality(question, asked):
    assert asked_of(question) == asked


def test_a_pages_nationality_is_the_first_its_opening_gives():
    page = lambda text: Passage("p", text, "P")  # noqa: E731
    assert page_nations(page("Scott Derrickson (born July 16, 1966) is an American director.")) == {"American"}
    assert page_nations(page("Joseph McGrath (born 1930, Glasgow) is a Scottish film director.")) == {"British"}
    assert page_nations(page("Mauritz Stiller was a Finnish-Swedish film director.")) == {"Finnish", "Swedish"}
    assert page_nations(page("George Archainbaud was a French-born American film director.")) == {"American"}
    assert page_nations(page("Ostava are an alternative rock band from Bulgaria.")) == {"Bulgarian"}
    assert page_nations(page("Waverley College is a school in Sydney, New South Wales.")) == {"Australian"}
    assert page_nations(page("Buried Country is a documentary film and a book.")) == frozenset()
    assert page_nations(page("Dog Days is an English-language Canadian film.")) == {"Canadian"}
    assert page_nations(page("Alison Moyet is an English singer-songwriter living in France.")) == {"British"}
    assert nations_in("the U.S. and England") == ["American", "British"]


DERRICKSON = Passage("sd", "Scott Derrickson (born July 16, 1966) is an American director and producer.",
                     "Scott Derrickson")
WOOD_FILM = Passage("ewf", "Ed Wood is a 1994 American biographical film directed by Tim Burton.", "Ed Wood (film)")
WOOD = Passage("ew", "Edward Davis Wood Jr. (1924 – 1978) was an American filmmaker.", "Ed Wood")
JORDAN = Passage("nj", "Neil Patrick Jordan (born 25 February 1950) is an Irish film director.", "Neil Jordan")
SAME = "Were Scott Derrickson and Ed Wood of the same nationality?"


def test_the_two_pages_are_those_the_question_names_the_names_own_first():
    assert [p.id for p in named_pages(SAME, [WOOD_FILM, DERRICKSON, WOOD])] == ["ew", "sd"]


def test_it_decides_only_with_two_named_pages_each_with_a_nationality():
    assert decide(SAME, [WOOD_FILM, DERRICKSON, WOOD]).answer == "Yes"
    both = "Are both Scott Derrickson and Neil Jordan American?"
    verdict = decide(both, [DERRICKSON, JORDAN])
    assert verdict.answer == "No" and verdict.asked == "American"
    assert decide(SAME, [DERRICKSON]) is None  # Ed Wood's page not read
    assert decide(SAME, [DERRICKSON, Passage("ew", "Ed Wood made films.", "Ed Wood")]) is None
    assert yes_no_to_decide(SAME, "Both made horror films.", [DERRICKSON, WOOD]) is None  # not a yes/no or unknown
    assert yes_no_to_decide(SAME, "unknown", [DERRICKSON, WOOD]).answer == "Yes"


def ask(answer: str, spec: str = "default"):
    retriever = FakeRetriever({"Scott Derrickson": DERRICKSON.text, "Neil Jordan": JORDAN.text})
    reader = FakeReader(answer=lambda prompt: answer)
    question = "Were Scott Derrickson and Neil Jordan of the same nationality?"
    events = list(run_question(question, make_strategy(spec), make_context(reader=reader, retriever=retriever)))
    return question, events, events[-1]


def test_the_pipeline_decides_an_unknown_and_says_why():
    question, events, answer = ask("unknown")
    assert isinstance(answer, Answer) and answer.text == "No" and answer.resolved_by.endswith("+nationality")
    check, lines, record = check_seen(events, "nationality.check", question, "no")
    assert (check.answer, check.decided, check.nations) == ("unknown", "No", [["American"], ["Irish"]])
    assert ("“unknown” became “No”: asked the same nationality (Scott Derrickson: American; "
            "Neil Jordan: Irish)") in lines
    assert "its yes/no decided by the nationalities the two pages give" in resolved_phrase(answer.resolved_by)
    assert record["nationality"]["answer"] == "unknown" and record["prediction"] == "No"


@pytest.mark.parametrize("text, spec, kept", [("No", "default", True), ("Yes", "default:nationality=false", True)])
def test_an_agreeing_answer_or_the_option_off_keeps_the_answer(text, spec, kept):
    _, events, answer = ask(text, spec)
    assert answer.text == text
    checks = [e for e in events if getattr(e, "kind", "") == "nationality.check"]
    assert (checks[0].summary.startswith("Kept") if checks else spec.endswith("false"))


def test_several_checks_read_in_the_order_they_ran():
    phrase = resolved_phrase("passages+yes/no+nationality")
    assert phrase.index("lean to yes") < phrase.index("nationalities")
