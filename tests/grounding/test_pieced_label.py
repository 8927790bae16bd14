"""An answer its pages lead to but do not state (a pick between options, a chain's last hop) is
labelled "pieced together" with a plain line before it; an answer a passage states stays
"supported"; the citations are the same either way."""
from assistant.context import Result
from assistant.events.core import Passage
from assistant.grounding.citations import Attribution
from assistant.grounding.pieced import PIECED, PIECED_NOTE, label_pieced, pieced_together
from assistant.grounding.verdict import MEMORY, SUPPORTED, UNSUPPORTED
from assistant.strategies import make_strategy
from helpers.fakes import make_context

FILM = Passage("film", "Blue Harbor is a 1998 drama film directed by Anne Marceau, set in a fishing town.",
               "Blue Harbor")
DIRECTOR = Passage("director", "Anne Marceau is a film director and writer. She was born in Lyon in 1961.",
                   "Anne Marceau")
OTHER = Passage("other", "Green Valley is a 2001 comedy film directed by Paul Brun, born in Nantes.", "Green Valley")


def test_picks_and_chains_are_pieced_together_and_statements_are_not():
    assert pieced_together("Who is older, Annie Morton or Terry Richardson?", "Terry Richardson", "passages")
    assert pieced_together("Are both films American?", "yes", "passages+yes-no")
    assert pieced_together("In which city was the director of Blue Harbor born?", "Lyon", "multi-hop+refined")
    assert not pieced_together("In which city was the director of Blue Harbor born?", "Lyon", "passages+refined")


def test_the_label_changes_only_a_supported_answer_and_keeps_its_citations():
    supported = Attribution(cited=[FILM], marked_text="Anne Marceau. [1]", grounding=SUPPORTED)
    pieced = label_pieced(supported, "Who directed Blue Harbor, Anne Marceau or Paul Brun?", "Anne Marceau",
                          "passages")
    assert pieced.grounding == PIECED and pieced.cited == [FILM]
    assert pieced.marked_text == f"{PIECED_NOTE} Anne Marceau. [1]"
    for other in (UNSUPPORTED, MEMORY, ""):
        unchanged = Attribution(cited=[], marked_text="x", grounding=other)
        assert label_pieced(unchanged, "A or B?", "A", "multi-hop") is unchanged
    assert label_pieced(supported, "A or B?", "A", "self-knowledge") is supported  # memory's own label


def test_the_default_labels_a_chains_answer_pieced_together_citing_its_pages():
    strategy = make_strategy("default")
    question = "In which city was the director of Blue Harbor born?"
    ctx = make_context()  # no index of a person's files: the encyclopedia pages' profile
    chain = strategy.attribution("Lyon", Result("Lyon", citations=[FILM, DIRECTOR, OTHER], resolved_by="multi-hop"),
                                 question, ctx)
    stated = strategy.attribution("Lyon", Result("Lyon", citations=[FILM, DIRECTOR, OTHER], resolved_by="passages"),
                                  question, ctx)
    assert stated.grounding == SUPPORTED and chain.grounding == PIECED
    assert [p.id for p in chain.cited] == [p.id for p in stated.cited] and "director" in [p.id for p in chain.cited]
    assert chain.marked_text.startswith("Pieced together from the pages found")
