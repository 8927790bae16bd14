"""`assistant serve`: the official openai client and plain HTTP against a server on a free port
(fake models): completions streamed or not, the models list, a follow-up, bad requests, two
clients at once, a client that goes mid-answer, and the API key."""
import json
import threading
import time

import httpx
import pytest
from helpers.fakes import FakeReader, FakeRetriever, make_context
from helpers.live_server import live_server

from assistant.conversation.threads import ThreadStore

openai = pytest.importorskip("openai")

DOCS = {"clinic": "The Harbor Clinic was founded by Dr. Ada Lane in 1990.",
        "river": "The Lune river runs past the clinic."}


class ScriptedReader(FakeReader):
    """Rewrites follow-ups by naming the clinic; answers from its passages; can be slow."""

    def __init__(self, delay: float = 0.0, words: int = 0):
        super().__init__(answer=self.reply)
        self.delay, self.words = delay, words
        self.stopped = threading.Event()
        self.generated = 0

    def reply(self, prompt: str) -> str:
        if "Rewritten question:" in prompt:
            return "Who founded the Harbor Clinic?"
        if self.words:
            return " ".join(f"w{i}" for i in range(self.words))
        return "Dr. Ada Lane founded it." if "Who founded" in prompt else "It is the Harbor Clinic."

    def stream(self, messages, max_tokens=128, **kwargs):
        finished = False
        try:
            for piece in super().stream(messages, max_tokens, **kwargs):
                if isinstance(piece, str):
                    self.generated += 1
                    time.sleep(self.delay)
                yield piece
            finished = True
        finally:  # Interrupted at a token, or closed by the worker between events
            if not finished:
                self.stopped.set()


@pytest.fixture
def reader():
    return ScriptedReader()


@pytest.fixture
def url(reader, tmp_path):
    retriever = FakeRetriever(DOCS)
    with live_server(lambda settings, strategy: make_context(reader=reader, retriever=retriever), tmp_path) as base:
        yield base


def client(url, key="unused"):
    return openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)


def test_the_models_list_names_the_strategies(url):
    ids = [m.id for m in client(url).models.list()]
    assert "default" in ids and "rag" in ids and "direct" in ids


def test_a_chat_completion_carries_inline_and_structured_citations(url):
    reply = client(url).chat.completions.create(model="rag", messages=[{"role": "user", "content": "Who founded the clinic?"}])
    content = reply.choices[0].message.content
    assert content.startswith("Dr. Ada Lane founded it.")
    extra = reply.model_extra
    assert extra["citations"], "the structured citations travel with the answer"
    assert extra["citations"][0]["label"] in content and "[1]" in content


def test_a_streamed_completion_comes_in_pieces_and_ends_with_the_citations(url):
    chunks = list(client(url).chat.completions.create(
        model="rag", stream=True, messages=[{"role": "user", "content": "Who founded the clinic?"}]))
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(pieces) >= 4  # word by word, not one block
    assert "".join(pieces).startswith("Dr. Ada Lane founded it.")
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["citations"]


def test_a_follow_up_is_rewritten_from_the_earlier_turns(url, reader):
    messages = [{"role": "user", "content": "What is the clinic by the river?"},
                {"role": "assistant", "content": "It is the Harbor Clinic."},
                {"role": "user", "content": "Who founded it?"}]
    reply = client(url).chat.completions.create(model="rag", messages=messages)
    assert reply.model_extra["standalone_question"] == "Who founded the Harbor Clinic?"
    answer_prompt = reader.prompts[-1][-1]["content"]
    assert "Who founded the Harbor Clinic?" in answer_prompt
    assert "It is the Harbor Clinic." not in answer_prompt  # the thread itself stays out of the answer


def test_a_saved_thread_keeps_the_turns_across_requests(url, tmp_path):
    c = client(url)
    c.chat.completions.create(model="rag", messages=[{"role": "user", "content": "What is the clinic?"}],
                              extra_body={"thread": "clinic"})
    second = c.chat.completions.create(model="rag", messages=[{"role": "user", "content": "Who founded it?"}],
                                       extra_body={"thread": "clinic"})
    assert second.model_extra["standalone_question"] == "Who founded the Harbor Clinic?"
    saved = ThreadStore(tmp_path).load("clinic")
    assert [t.question for t in saved.turns] == ["What is the clinic?", "Who founded it?"]


@pytest.mark.parametrize("body, status", [
    ({"model": "rag", "messages": []}, 400),
    ({"model": "rag", "messages": [{"role": "assistant", "content": "hi"}]}, 400),
    ({"model": "no-such-strategy", "messages": [{"role": "user", "content": "hi"}]}, 404),
    ({"model": "rag:nonsense=1", "messages": [{"role": "user", "content": "hi"}]}, 400),
    ({"model": "rag", "messages": "not a list"}, 400),
    ({"model": "rag", "messages": [{"role": "user", "content": "hi"}], "thread": "../etc"}, 400),
])
def test_a_bad_request_gets_a_json_error(url, body, status):
    reply = httpx.post(url + "/v1/chat/completions", json=body)
    assert reply.status_code == status
    assert reply.json()["error"]["message"]


def test_malformed_json_and_an_unknown_path_get_json_errors(url):
    reply = httpx.post(url + "/v1/chat/completions", content=b"{not json", headers={"content-type": "application/json"})
    assert reply.status_code == 400 and "error" in reply.json()
    assert httpx.get(url + "/v1/nothing").json()["error"]["message"]


def test_the_openai_client_raises_on_a_bad_request(url):
    with pytest.raises(openai.NotFoundError):
        client(url).chat.completions.create(model="nope", messages=[{"role": "user", "content": "hi"}])


def test_two_clients_at_once_both_get_their_answers(reader, url):
    reader.delay = 0.01
    results = {}

    def ask(name, question):
        results[name] = client(url).chat.completions.create(
            model="rag", messages=[{"role": "user", "content": question}]).choices[0].message.content

    threads = [threading.Thread(target=ask, args=(n, q)) for n, q in (("a", "Who founded the clinic?"),
                                                                       ("b", "What is the clinic?"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results["a"].startswith("Dr. Ada Lane founded it.")
    assert results["b"].startswith("It is the Harbor Clinic.")


def test_a_client_that_disconnects_stops_its_answer_and_frees_the_reader(reader, url):
    reader.delay, reader.words = 0.02, 400  # 8 s if nobody stops it
    with httpx.stream("POST", url + "/v1/chat/completions", json={
            "model": "rag", "stream": True, "messages": [{"role": "user", "content": "Say a lot"}]}) as reply:
        for line in reply.iter_lines():
            if '"content": "w' in line:
                break  # the first token: then hang up
    assert reader.stopped.wait(5), "the question went on after its client left"
    assert reader.generated < 400
    reader.delay, reader.words = 0.0, 0
    after = httpx.post(url + "/v1/chat/completions", timeout=10,
                       json={"model": "rag", "messages": [{"role": "user", "content": "Who founded the clinic?"}]})
    assert after.json()["choices"][0]["message"]["content"].startswith("Dr. Ada Lane")


def test_the_event_stream_names_each_step(url):
    with httpx.stream("POST", url + "/v1/events", json={"question": "Who founded the clinic?", "model": "rag"}) as reply:
        types = [json.loads(line[6:])["type"] for line in reply.iter_lines()
                 if line.startswith("data: {")]
    assert types[0] == "started" and "retrieved" in types and "token" in types and types[-1] == "answer"


def test_an_api_key_is_required_when_one_is_set(reader, tmp_path):
    factory = lambda settings, strategy: make_context(reader=reader, retriever=FakeRetriever(DOCS))  # noqa: E731
    with live_server(factory, tmp_path, api_key="s3cret") as base:
        with pytest.raises(openai.AuthenticationError):
            client(base, key="wrong").models.list()
        assert [m.id for m in client(base, key="s3cret").models.list()]


def test_serving_off_loopback_without_a_key_is_refused():
    from assistant.server.run import check_bind
    from models.errors import AssistantError

    with pytest.raises(AssistantError, match="API key"):
        check_bind("0.0.0.0", 0, None)


@pytest.mark.skipif(__import__("shutil").which("curl") is None, reason="no curl")
def test_curl_gets_a_streamed_completion(url):
    import subprocess

    body = json.dumps({"model": "rag", "stream": True, "messages": [{"role": "user", "content": "Who founded the clinic?"}]})
    out = subprocess.run(["curl", "-sN", url + "/v1/chat/completions", "-H", "Content-Type: application/json",
                          "-d", body], capture_output=True, text=True, timeout=30).stdout
    lines = [line[6:] for line in out.splitlines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    text = "".join(json.loads(x)["choices"][0]["delta"].get("content") or "" for x in lines[:-1])
    assert text.startswith("Dr. Ada Lane founded it.") and "Sources:" in text
