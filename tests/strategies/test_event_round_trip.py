"""Every event a run emits comes back from its JSON as it was (the server's /v1/events stream, --json
lines and recorded traces are read back with event_from_dict)."""
from assistant.events.core import Passage, Reading, Retrieved
from assistant.events.event_json import event_from_dict
from assistant.runner import run_question
from helpers.fakes import FakeReader, FakeRetriever, make_context


def test_the_reading_step_keeps_its_passage_ids():
    reading = Reading(step=3, parent=2, question="Who?", passages=["a", "b"])
    assert event_from_dict(reading.to_dict()) == reading
    found = Retrieved(step=2, query="Who?", passages=[Passage("a", "text", "A")])
    assert event_from_dict(found.to_dict()) == found


def test_a_whole_run_round_trips():
    ctx = make_context(reader=FakeReader(answer=lambda prompt: "Mira"),
                       retriever=FakeRetriever({"heron": "Mira leads Heron.", "otter": "Tomas leads Otter."}))
    events = list(run_question("Who leads Heron?", "rag", ctx))
    assert any(isinstance(e, Reading) for e in events)
    assert [event_from_dict(e.to_dict()) for e in events] == events
