"""A pick between two options decided by the dates their pages give (assistant/checks/dated_choice.py):
which questions ask for a date comparison, the options they name, how a page's date is read, when
it abstains, and the default pipeline's step, trace, eval record and option."""
import pytest
from helpers.answer_checks import check_seen
from helpers.fakes import FakeReader, FakeRetriever, make_context

from assistant.checks.choice_options import options_of, picked
from assistant.checks.dated_choice import (Dated, DateFrame, dates_in, decide, earlier_of, frame_of, option_pages,
                                    page_date)
from assistant.events.core import Answer, Passage
from assistant.runner import run_question
from assistant.presentation.step_text import resolved_phrase
from assistant.strategies import make_strategy


@pytest.mark.parametrize("question, options", [
    ("Who was born first, Erika Jayne or Marco Da Silva", ("Erika Jayne", "Marco Da Silva")),
    ("Which band was formed first The Exies or Circus Diablo ?", ("The Exies", "Circus Diablo")),
    ("Which plant is larger, the Pterocarya or the Cotula?", ("Pterocarya", "Cotula")),
    ("Which came first the forming of The Dandy Warhols or the birth of Robert Young?",
     ("The Dandy Warhols", "Robert Young")),
    ("Which person, William Blake Herron or John Carpenter, held more diverse roles?",
     ("William Blake Herron", "John Carpenter")),
    ("Which novelist wrote under the pen name Walter Ericson: Laura Esquivel or Howard Fast?",
     ("Laura Esquivel", "Howard Fast")),
    ("Which film was released earlier, Yohan: The Child Wanderer or A Nightmare On Elm Street 4: The Dream Master?",
     ("Yohan: The Child Wanderer", "A Nightmare On Elm Street 4: The Dream Master")),
    ("Which city is older, Łódź or Kraków?", ("Łódź", "Kraków")),
    ("Who was born first Mahbub ul Haq or Ibn Arabi?", ("Mahbub ul Haq", "Ibn Arabi")),  # a lower-case joiner
    # a question opening with its verb or "Which of": neither is part of a name, nor the frame after B
    ("Was Harry R. Harr or Werner Lüdi born first?", ("Harry R. Harr", "Werner Lüdi")),
    ("Did Arthur Lubin or Aleksandr Ivanovsky die first?", ("Arthur Lubin", "Aleksandr Ivanovsky")),
    ("Is the Marsilea or the Brabejum the genus of more individual species of plants?", ("Marsilea", "Brabejum")),
    ("Which of Dinosaur or McFarland, USA was released first?", ("Dinosaur", "McFarland, USA")),
    ("Was Love in a Fallen City or The Secret of the Storm Country released first?",
     ("Love in a Fallen City", "The Secret of the Storm Country")),
    ("Which song came out first, Hard Candy or Love is a Battlefield?", ("Hard Candy", "Love is a Battlefield")),
    ("Who directed the film that was shot in or around Leland in 1986", None),  # "in or around": no names
    ("Who leads Project Otter?", None),
    ("Is it Alpha or Beta or Gamma?", None),  # three options
])
def test_the_two_options_a_question_names(question, options):
    assert options_of(question) == options


def test_the_option_an_answer_names():
    options = ("Alpha Writer", "Beta Poet")
    assert picked("Beta Poet.", options) == 1 and picked("alpha writer", options) == 0
    assert picked("Alpha", options) == 0  # part of a name
    assert picked("Gamma", options) is None and picked("", options) is None


@pytest.mark.parametrize("question, frame", [
    ("Who was born first, A or B?", DateFrame("start", True, "born")),
    ("Who is younger, A or B?", DateFrame("start", False, "")),  # the page's opening date: its birth
    ("Which magazine is older, A or B?", DateFrame("start", True, "")),
    ("Which musician, born in Leeds, is older, A or B?", DateFrame("start", True, "born")),
    ("Who died first, A or B?", DateFrame("death", True, "died")),
    ("Which film was released more recently, A or B?", DateFrame("start", False, "released")),
    ("Which band formed earlier, A or B?", DateFrame("start", True, "formed")),
    ("Who was the first Russian composer to be known abroad, A or B?", None),  # no comparison of dates
    ("Which film has the director who was born first, A or B?", None),  # the directors' dates
    ("Which film whose director is younger, A or B?", None),
    ("Which band has more members, A or B?", None),
    ("Which one came first?", None),  # no verb of an event
])
def test_which_questions_compare_dates(question, frame):
    assert frame_of(question) == frame


def test_dates_as_pages_write_them():
    assert [(d.year, d.month, d.day) for d in dates_in(
        "Erika Girardi (born 10 July 1971); Marco (born May, 30th, 1977); Emma Bull (born December 13, 1954); "
        "in March 1990; founded in 1922; Caesar died 44 BC")] == [
        (1971, 7, 10), (1977, 5, 30), (1954, 12, 13), (1990, 3, 0), (1922, 0, 0), (-44, 0, 0)]
    assert dates_in("more than 300 papers and 12 albums") == []
    assert earlier_of(Dated(1971, 7, 10), Dated(1971, 5, 30)) == 1
    assert earlier_of(Dated(1971), Dated(1971, 5, 30)) is None  # same year, one month unknown
    assert earlier_of(Dated(-44), Dated(14)) == 0


BORN = DateFrame("start", True, "born")


def test_a_pages_date_after_the_questions_verb_else_its_title_year_else_its_opening():
    band = Passage("w", "Wavves is an American rock band based in San Diego, known for a 2010 album. Formed in 2008 "
                   "by Nathan Williams (born June 12, 1986).", "Wavves")
    assert page_date([band], DateFrame("start", True, "formed")).year == 2008
    battle = Passage("g", "The Battle of Guam was the American recapture of the island.", "Battle of Guam (1944)")
    assert page_date([battle], DateFrame("start", True, "fought")).year == 1944
    film = Passage("d", "Dinosaur is a 2000 American computer-animated film.", "Dinosaur (film)")
    assert page_date([film], DateFrame("start", True, "came out")).year == 2000
    woolf = Passage("v", "Adeline Virginia Woolf (née Stephen; 25 January 1882 – 28 March 1941) was an English writer.",
                    "Virginia Woolf")
    assert page_date([woolf], DateFrame("death", True, "died")).year == 1941
    assert page_date([woolf], BORN).year == 1882
    # a later passage of a page is no opening: its first date is not its subject's
    later = Passage("v2", "In 1999 a monument was raised to the resistance.", "Piero Calamandrei")
    opening = Passage("v1", "Piero Calamandrei (21 April 1889 – 27 September 1956) was an Italian writer.",
                      "Piero Calamandrei")
    assert page_date([later], BORN) is None and page_date([later, opening], BORN).year == 1889


def test_a_films_age_is_its_own_date_not_its_casts_birth():
    gang = Passage("g", "The Apple Dumpling Gang is a 1975 American comedy western film starring Bill Bixby "
                   "(born January 22, 1934).", "The Apple Dumpling Gang")
    heavy = Passage("h", "Heavyweights is a 1995 American sports comedy film starring Ben Stiller (born November "
                    "30, 1965).", "Heavyweights")
    verdict = decide("Which film is newer, The Apple Dumpling Gang or Heavyweights?", [gang, heavy])
    assert [d.year for d in verdict.dates] == [1975, 1995] and verdict.decided == 1


def test_an_options_page_is_the_best_ranked_of_its_name():
    manila_1574 = Passage("m1", "The Battle of Manila of 1574 was fought against Limahong.", "Battle of Manila (1574)")
    manila_1945 = Passage("m2", "The Battle of Manila of 1945 was fought in the Philippines.", "Battle of Manila (1945)")
    other = Passage("x", "Manila is the capital of the Philippines.", "Manila")
    assert [p.id for p in option_pages("the Battle of Manila", [other, manila_1574, manila_1945])] == ["m1"]
    # of a band and a film of one name, the film's page when the question asks about a film
    band = Passage("ob", "Old Dogs was an American country supergroup. Signed in 1998 to Atlantic Records.", "Old Dogs")
    film = Passage("of", "Old Dogs is a 2009 American comedy film. It was released on November 25, 2009.",
                   "Old Dogs (film)")
    assert [p.id for p in option_pages("Old Dogs", [band, film], "Which film was released more recently?")] == ["of"]
    assert [p.id for p in option_pages("Old Dogs", [band, film], "Which came first?")] == ["ob"]
    usa = Passage("u", "McFarland, USA is a 2015 American sports drama film.", "McFarland, USA")
    assert [p.id for p in option_pages("McFarland, USA", [other, usa])] == ["u"]
    assert option_pages("Toy Story", [other, usa]) == []


EMMA = Passage("emma", "Emma Bull (born December 13, 1954) is an American science fiction author.", "Emma Bull")
WOOLF = Passage("woolf", "Adeline Virginia Woolf (25 January 1882 – 28 March 1941) was an English writer.",
                "Virginia Woolf")
EARLIER = "Who was born earlier, Emma Bull or Virginia Woolf?"


def test_it_decides_only_with_both_pages_and_two_dates_that_differ():
    verdict = decide(EARLIER, [EMMA, WOOLF])
    assert verdict.decided == 1 and verdict.pages == ("Emma Bull", "Virginia Woolf")
    assert [d.year for d in verdict.dates] == [1954, 1882]
    assert decide("Who was born later, Emma Bull or Virginia Woolf?", [EMMA, WOOLF]).decided == 0
    assert decide(EARLIER, [EMMA]) is None  # Woolf's page not read
    undated = Passage("woolf", "Virginia Woolf was an English writer.", "Virginia Woolf")
    assert decide(EARLIER, [EMMA, undated]) is None
    twin = Passage("woolf", "Virginia Woolf (born 1954) is a writer.", "Virginia Woolf")
    assert decide(EARLIER, [Passage("emma", "Emma Bull (born 1954) is an author.", "Emma Bull"), twin]) is None
    assert decide("Who wrote more novels, Emma Bull or Virginia Woolf?", [EMMA, WOOLF]) is None


def ask(answer: str, spec: str = "default"):
    retriever = FakeRetriever({"Emma Bull": EMMA.text, "Virginia Woolf": WOOLF.text})  # a passage's title is its id
    reader = FakeReader(answer=lambda prompt: answer)
    events = list(run_question(EARLIER, make_strategy(spec), make_context(reader=reader, retriever=retriever)))
    return events, events[-1]


def test_the_pipeline_turns_a_pick_the_dates_contradict_and_says_why():
    events, answer = ask("Emma Bull")
    assert isinstance(answer, Answer) and answer.text == "Virginia Woolf"
    assert answer.resolved_by.endswith("+dates")
    check, lines, record = check_seen(events, "dates.choice", EARLIER, "Virginia Woolf")
    assert (check.answer, check.decided, check.dates) == ("Emma Bull", "Virginia Woolf",
                                                          ["December 13, 1954", "25 January 1882"])
    assert ("“Emma Bull” became “Virginia Woolf”, the earlier date (Emma Bull: December 13, 1954; "
            "Virginia Woolf: 25 January 1882)") in lines
    assert "its pick turned by the dates the two pages give" in resolved_phrase(answer.resolved_by)
    assert record["dates"]["answer"] == "Emma Bull" and record["prediction"] == "Virginia Woolf"
    assert record["scores"]["em"] == 1.0


def test_a_pick_the_dates_agree_with_stands():
    events, answer = ask("Virginia Woolf")
    assert answer.text == "Virginia Woolf" and not answer.resolved_by.endswith("+dates")
    check = next(e for e in events if e.type == "detail" and e.kind == "dates.choice")
    assert check.summary.startswith("Kept “Virginia Woolf”")


@pytest.mark.parametrize("text, spec", [("Emma Bull", "default:dates=false"), ("unknown", "default")])
def test_the_option_off_or_an_answer_naming_neither_is_not_weighed(text, spec):
    events, answer = ask(text, spec)
    assert answer.text == text
    assert not any(getattr(e, "kind", "") == "dates.choice" for e in events)
