"""`assistant serve` as OpenAI clients expect it (issue 52), with the official openai client and
httpx on 127.0.0.1 at a free port, over fake models: usage counted over the reader calls (and the
include_usage chunk), max_tokens with finish_reason "length", stop, temperature, system messages
as instructions, what is refused by name (n, tools, response_format, images), /v1/models/{id},
JSON errors (503 for a missing index, a lone surrogate, a failing stream), fields checked by type
and range, a non-streamed request stopped when its client goes, and the bounded queue (429)."""
import json
import threading
import time
from pathlib import Path

import httpx
import pytest
from helpers.fakes import FakeRetriever, make_context
from helpers.live_server import live_server
from helpers.serve_fakes import DOCS, CountingReader

openai = pytest.importorskip("openai")
ASK = [{"role": "user", "content": "Who founded the clinic?"}]


def serve(reader, tmp_path, **options):
    retriever = FakeRetriever(DOCS)
    return live_server(lambda settings, strategy: make_context(reader=reader, retriever=retriever), tmp_path,
                       **options)


@pytest.fixture
def reader():
    return CountingReader()


@pytest.fixture
def url(reader, tmp_path):
    with serve(reader, tmp_path) as base:
        yield base


def client(url):
    return openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0)


def post(url, body, **kwargs):
    return httpx.post(url + "/v1/chat/completions", json=body, timeout=30, **kwargs)


# -- usage -----------------------------------------------------------------------------------

def test_usage_counts_the_tokens_of_every_reader_call(url, reader):
    messages = [{"role": "user", "content": "What is the clinic?"}, {"role": "assistant", "content": "A clinic."},
                {"role": "user", "content": "Who founded it?"}]  # a follow-up: its rewrite is a call too
    reply = client(url).chat.completions.create(model="rag", messages=messages)
    assert len(reader.calls) == 2
    assert reply.usage.prompt_tokens == reader.stats.prompt_tokens > 0
    assert reply.usage.completion_tokens == reader.stats.completion_tokens > 0
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


def test_a_stream_with_include_usage_ends_with_a_usage_chunk(url, reader):
    chunks = list(client(url).chat.completions.create(model="rag", messages=ASK, stream=True,
                                                      stream_options={"include_usage": True}))
    last = chunks[-1]
    assert last.choices == [] and last.usage.completion_tokens == reader.stats.completion_tokens > 0
    assert last.usage.prompt_tokens == reader.stats.prompt_tokens
    assert all(c.usage is None for c in chunks[:-1])
    assert chunks[-2].choices[0].finish_reason == "stop"


def test_a_stream_without_include_usage_has_no_usage_chunk(url):
    chunks = list(client(url).chat.completions.create(model="rag", messages=ASK, stream=True))
    assert chunks[-1].choices and chunks[-1].choices[0].finish_reason == "stop"


# -- what shapes the answer --------------------------------------------------------------------

@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_max_tokens_cuts_the_answer_with_finish_reason_length(url, reader, field):
    reply = client(url).chat.completions.create(model="rag", messages=ASK, **{field: 2})
    assert reader.answer_calls()[-1]["max_tokens"] == 2
    assert reply.choices[0].finish_reason == "length"
    assert reply.choices[0].message.content.startswith("Dr. Ada")
    assert "founded" not in reply.choices[0].message.content.split("Sources:")[0]
    assert reply.usage.completion_tokens == 2


def test_a_streamed_answer_cut_by_max_tokens_ends_with_length(url):
    chunks = list(client(url).chat.completions.create(model="rag", messages=ASK, max_tokens=2, stream=True))
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"


def test_stop_sequences_reach_the_reader_and_end_the_answer(url, reader):
    reply = client(url).chat.completions.create(model="rag", messages=ASK, stop=["Lane"])
    assert reader.answer_calls()[-1]["stop"] == ("Lane",)
    first = reply.choices[0].message.content.split("\n")[0]
    assert first.startswith("Dr. Ada") and "Lane" not in first
    assert reply.choices[0].finish_reason == "stop"


def test_temperature_and_seed_reach_the_answer_only(url, reader):
    messages = [{"role": "user", "content": "What is the clinic?"}, {"role": "assistant", "content": "A clinic."},
                {"role": "user", "content": "Who founded it?"}]
    client(url).chat.completions.create(model="rag", messages=messages, temperature=0.7, seed=5)
    rewrite, answer = reader.calls
    assert answer["temperature"] == 0.7 and answer["seed"] == 5
    assert "temperature" not in rewrite  # the follow-up's rewrite keeps its own settings


def test_temperature_zero_stays_greedy(url, reader):
    client(url).chat.completions.create(model="rag", messages=ASK, temperature=0)
    assert "temperature" not in reader.answer_calls()[-1]


def test_system_messages_are_instructions_for_the_answer(url, reader):
    messages = [{"role": "system", "content": "Answer in French."}, *ASK]
    client(url).chat.completions.create(model="rag", messages=messages)
    system = reader.answer_calls()[-1]["messages"][0]
    assert system["role"] == "system" and "Answer in French." in system["content"]
    assert "documents" in system["content"]  # the strategy's own rules stay first


def test_without_a_system_message_the_prompt_is_the_strategys(url, reader):
    client(url).chat.completions.create(model="rag", messages=ASK)
    assert "instructions for the answer" not in reader.answer_calls()[-1]["messages"][0]["content"]


# -- refused by name -------------------------------------------------------------------------

TOOL = {"type": "function", "function": {"name": "weather", "parameters": {"type": "object", "properties": {}}}}


@pytest.mark.parametrize("extra, param", [
    ({"n": 2}, "n"),
    ({"tools": [TOOL]}, "tools"),
    ({"tool_choice": "required"}, "tool_choice"),
    ({"response_format": {"type": "json_object"}}, "response_format"),
    ({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}}, "response_format"),
    ({"logprobs": True}, "logprobs"),
    ({"presence_penalty": 1.0}, "presence_penalty"),
])
def test_what_no_strategy_can_give_is_refused_naming_the_field(url, reader, extra, param):
    with pytest.raises(openai.BadRequestError) as refused:
        client(url).chat.completions.create(model="rag", messages=ASK, **extra)
    assert refused.value.status_code == 400
    assert refused.value.body["param"] == param and refused.value.body["message"]
    assert reader.calls == []  # refused before any question ran


def test_an_image_part_is_refused_naming_the_part(url):
    content = [{"type": "text", "text": "What is in this picture?"},
               {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    reply = post(url, {"model": "rag", "messages": [{"role": "user", "content": content}]})
    assert reply.status_code == 400 and reply.json()["error"]["param"] == "messages[0].content[1]"


def test_text_parts_are_read_as_the_question(url):
    content = [{"type": "text", "text": "Who founded"}, {"type": "text", "text": "the clinic?"}]
    reply = post(url, {"model": "rag", "messages": [{"role": "user", "content": content}]})
    assert reply.json()["choices"][0]["message"]["content"].startswith("Dr. Ada Lane")


# -- fields by type and range ------------------------------------------------------------------

@pytest.mark.parametrize("extra, param", [
    ({"stream": "yes"}, "stream"), ({"max_tokens": -5}, "max_tokens"), ({"max_tokens": 0}, "max_tokens"),
    ({"max_tokens": "10"}, "max_tokens"), ({"temperature": 5}, "temperature"), ({"temperature": "hot"}, "temperature"),
    ({"top_p": 2}, "top_p"), ({"stop": ["a", "b", "c", "d", "e"]}, "stop"), ({"n": 0}, "n"), ({"model": 7}, "model"),
    ({"stream_options": {"include_usage": "yes"}}, "stream_options.include_usage"),
])
def test_a_field_of_the_wrong_type_or_range_is_a_400_naming_it(url, reader, extra, param):
    reply = post(url, {"model": "rag", "messages": ASK, **extra})
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["param"] == param and reply.json()["error"]["type"] == "invalid_request_error"
    assert reader.calls == []


# -- models -------------------------------------------------------------------------------------

def test_a_model_is_retrieved_by_its_id(url):
    model = client(url).models.retrieve("rag")
    assert model.id == "rag" and model.object == "model"


def test_an_unknown_model_id_is_a_404_json_error(url):
    with pytest.raises(openai.NotFoundError) as missing:
        client(url).models.retrieve("no-such-model")
    assert missing.value.body["code"] == "model_not_found"
    assert httpx.get(url + "/v1/models/no-such-model").headers["content-type"] == "application/json"


# -- errors as JSON ---------------------------------------------------------------------------------

def test_a_missing_index_is_the_servers_state_a_503(tmp_path):
    with live_server(None, tmp_path) as base:  # the real context: the index is opened before any model
        reply = post(base, {"model": "rag", "messages": ASK})
        streamed = httpx.post(base + "/v1/chat/completions", json={"model": "rag", "messages": ASK, "stream": True})
    error = reply.json()["error"]
    assert reply.status_code == 503 and error["type"] == "server_error" and error["code"] == "index_unavailable"
    assert "index" in error["message"] and "direct" in error["message"]
    lines = [line[6:] for line in streamed.text.splitlines() if line.startswith("data: ")]
    assert json.loads(lines[-2])["error"]["code"] == "index_unavailable" and lines[-1] == "[DONE]"


def test_a_lone_surrogate_is_a_400_json_error(url, reader):
    raw = b'{"model": "rag", "messages": [{"role": "user", "content": "Who \\ud800 founded it?"}]}'
    reply = httpx.post(url + "/v1/chat/completions", content=raw, headers={"content-type": "application/json"})
    assert reply.status_code == 400 and reply.headers["content-type"] == "application/json"
    assert reply.json()["error"]["param"] == "messages[0].content" and "surrogate" in reply.json()["error"]["message"]
    streamed = httpx.post(url + "/v1/chat/completions", headers={"content-type": "application/json"},
                          content=raw.replace(b'"rag",', b'"rag", "stream": true,'))
    assert streamed.status_code == 400 and reader.calls == []
    thread = httpx.post(url + "/v1/chat/completions", headers={"content-type": "application/json"},
                        content=b'{"model": "rag", "thread": "a\\udc80b", "messages": [{"role": "user", "content": "Hi?"}]}')
    assert thread.status_code == 400 and thread.json()["error"]["param"] == "thread"


def test_a_stream_that_fails_ends_with_an_error_event_and_done(tmp_path):
    with serve(CountingReader(fail_after=2), tmp_path) as base:
        with httpx.stream("POST", base + "/v1/chat/completions", json={"model": "rag", "messages": ASK,
                                                                      "stream": True}) as reply:
            lines = [line[6:] for line in reply.iter_lines() if line.startswith("data: ")]
        after = post(base, {"model": "direct", "messages": [{"role": "user", "content": "Hi?"}]})
    assert lines[-1] == "[DONE]"
    error = json.loads(lines[-2])["error"]
    assert error["type"] == "server_error" and error["code"] == "internal_error"
    assert after.status_code == 500 and after.json()["error"]["code"] == "internal_error"  # JSON, not text


def test_an_unknown_path_and_a_wrong_method_are_json(url):
    for reply in (httpx.get(url + "/v2/nothing"), httpx.get(url + "/v1/chat/completions")):
        assert reply.status_code in (404, 405) and reply.json()["error"]["message"]


# -- a client that goes, a queue that is full -------------------------------------------------------

def test_a_non_streamed_request_stops_when_its_client_goes(tmp_path):
    reader = CountingReader(delay=0.05, words=400)  # 96 tokens (max_answer_tokens): 5 s if nobody stops it
    with serve(reader, tmp_path) as base:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(base + "/v1/chat/completions", json={"model": "rag", "messages": ASK}, timeout=0.5)
        assert reader.stopped.wait(5), "the question went on after its client left"
        assert reader.generated < 96
        reader.words, reader.delay = 0, 0.0
        assert post(base, {"model": "rag", "messages": ASK}).json()["choices"][0]["message"]["content"]


def test_a_full_queue_answers_429_with_retry_after(tmp_path):
    reader = CountingReader(delay=0.05, words=60)  # 3 s each
    with serve(reader, tmp_path, queue_size=2) as base:
        streams = [httpx.stream("POST", base + "/v1/chat/completions", timeout=30,
                                json={"model": "rag", "messages": ASK, "stream": True}) for _ in range(2)]
        opened = [s.__enter__() for s in streams]  # both hold a place: one answered, one waiting
        try:
            deadline = time.monotonic() + 10
            while httpx.get(base + "/health").json()["waiting"] < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            with pytest.raises(openai.RateLimitError) as busy:
                client(base).chat.completions.create(model="rag", messages=ASK)
            assert int(busy.value.response.headers["retry-after"]) >= 1
            assert busy.value.body["code"] == "queue_full"
        finally:
            for s in streams:
                s.__exit__(None, None, None)
        assert opened[0].status_code == 200


def test_the_queue_takes_as_many_as_its_size(tmp_path):
    reader = CountingReader(delay=0.01, words=20)
    results = []
    with serve(reader, tmp_path, queue_size=3) as base:
        threads = [threading.Thread(target=lambda: results.append(post(base, {"model": "rag", "messages": ASK})))
                   for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert [r.status_code for r in results] == [200, 200, 200]


@pytest.mark.real_models
def test_the_bundled_reader_counts_usage_and_stops_at_max_tokens(tmp_path):
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore
    from models import registry
    from models.config import Settings

    settings = Settings(data_dir=tmp_path)
    embedder = registry.get_embedder(settings)
    store = IndexStore.open_or_create(settings.index_path, embedder.model_id, embedder.dim)
    index_folder(store, embedder, Path(__file__).resolve().parents[2] / "examples" / "docs")
    with live_server(None, tmp_path) as base:
        messages = [{"role": "user", "content": "Who leads Project Heron?"}]
        cut = client(base).chat.completions.create(model="rag", messages=messages, max_tokens=2)
        chunks = list(client(base).chat.completions.create(model="rag", messages=messages, stream=True,
                                                           stream_options={"include_usage": True}))
    assert cut.choices[0].finish_reason == "length" and cut.usage.completion_tokens == 2
    assert cut.usage.prompt_tokens > 50  # the passages were read
    assert chunks[-1].usage.completion_tokens > 2 and chunks[-1].usage.prompt_tokens > 50


def test_a_collection_reaches_the_question_through_either_route(tmp_path):
    from assistant.server.client import ask as remote_ask

    reader, seen = CountingReader(), []

    def factory(settings, strategy):
        seen.append(settings.collection)
        return make_context(reader=reader, retriever=FakeRetriever(DOCS))

    with live_server(factory, tmp_path) as base:
        client(base).chat.completions.create(model="rag", messages=ASK, extra_body={"collection": "work"})
        events = list(remote_ask(base, "Who founded the clinic?", "rag", collection="personal"))  # `ask -c`
        client(base).chat.completions.create(model="rag", messages=ASK)
        bad = post(base, {"model": "rag", "messages": ASK, "collection": "../x"})
    assert seen == ["work", "personal", None]
    assert type(events[-1]).__name__ == "Answer"
    assert bad.status_code == 400 and "collection name" in bad.json()["error"]["message"]
