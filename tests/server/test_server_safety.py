"""`assistant serve`'s guards (issue 52): the Host header must name this server (a web page that
rebinds its name to 127.0.0.1 gets nothing), no CORS unless --cors-origin allows an origin, pages
of other sites refused, and source paths: absolute for a client on this machine, the folder's own
name for one on another (an in-process ASGI client with a LAN address: no traffic leaves)."""
import json

import httpx
import pytest
from helpers.fakes import FakeRetriever, make_context
from helpers.live_server import live_server
from helpers.serve_fakes import DOCS, CountingReader

from assistant.events.core import Passage

ASK = {"model": "rag", "messages": [{"role": "user", "content": "Who founded the clinic?"}]}
FOLDER = "/home/ana/clinic-notes"


class FolderRetriever(FakeRetriever):
    """Passages of a folder indexed at FOLDER, as the real index records them."""

    def __init__(self):
        super().__init__(DOCS)
        self.passages = [Passage(id=p.id, text=p.text, title=p.title, path=f"notes/{p.id}.md", source=FOLDER)
                         for p in self.passages]


@pytest.fixture
def reader():
    return CountingReader()


def factory(reader):
    retriever = FolderRetriever()
    return lambda settings, strategy: make_context(reader=reader, retriever=retriever)


@pytest.fixture
def url(reader, tmp_path):
    with live_server(factory(reader), tmp_path) as base:
        yield base


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


# -- the Host header ---------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}",
                                  "localhost:1", ""])
def test_a_request_for_another_host_is_refused_with_json(url, reader, host):
    reply = httpx.post(url + "/v1/chat/completions", json=ASK, headers={"Host": host.format(port=port_of(url))})
    assert reply.status_code == 421 and reply.headers["content-type"] == "application/json"
    assert reply.json()["error"]["param"] == "Host" and "127.0.0.1" in reply.json()["error"]["message"]
    assert reader.calls == [], "a rebound page must not get an answer (nor make the reader work)"


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "LOCALHOST:{port}"])
def test_the_loopback_names_are_answered(url, host):
    reply = httpx.get(url + "/v1/models", headers={"Host": host.format(port=port_of(url))})
    assert reply.status_code == 200 and reply.json()["data"]


def test_the_health_check_is_guarded_too(url):
    assert httpx.get(url + "/health", headers={"Host": "evil.example"}).status_code == 421


def test_an_allowed_host_name_is_answered(reader, tmp_path):
    with live_server(factory(reader), tmp_path, allowed_hosts=("assistant.lan",)) as base:
        ok = httpx.get(base + "/v1/models", headers={"Host": f"assistant.lan:{port_of(base)}"})
        other = httpx.get(base + "/v1/models", headers={"Host": f"other.lan:{port_of(base)}"})
    assert ok.status_code == 200 and other.status_code == 421


def test_the_bound_name_is_answered_and_a_wildcard_bind_adds_this_machines_names():
    import socket

    from assistant.server.guards import Policy, host_names
    from assistant.server.run import served_names

    assert Policy(hosts=host_names("192.168.1.20"), port=8321).allows_host("192.168.1.20:8321")
    assert Policy(hosts=host_names("::1"), port=8321).allows_host("[::1]:8321")
    assert socket.gethostname() in served_names("0.0.0.0", ())
    assert served_names("127.0.0.1", ()) == ()


# -- CORS and pages of other sites ---------------------------------------------------------------

def test_without_cors_origin_a_page_of_another_site_is_refused(url, reader):
    reply = httpx.post(url + "/v1/chat/completions", json=ASK, headers={"Origin": "http://evil.example"})
    assert reply.status_code == 403 and reply.json()["error"]["code"] == "origin_not_allowed"
    assert "access-control-allow-origin" not in reply.headers and reader.calls == []
    preflight = httpx.options(url + "/v1/chat/completions", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 403 and "access-control-allow-origin" not in preflight.headers


def test_a_program_without_an_origin_gets_no_cors_headers(url):
    reply = httpx.get(url + "/v1/models")
    assert reply.status_code == 200 and "access-control-allow-origin" not in reply.headers


def test_a_page_of_the_server_itself_is_answered(url):
    assert httpx.get(url + "/v1/models", headers={"Origin": url}).status_code == 200


def test_cors_origin_allows_that_origin_alone(reader, tmp_path):
    allowed = "http://localhost:3000"
    with live_server(factory(reader), tmp_path, cors_origins=(allowed,)) as base:
        preflight = httpx.options(base + "/v1/chat/completions", headers={
            "Origin": allowed, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        answered = httpx.post(base + "/v1/chat/completions", json=ASK, headers={"Origin": allowed}, timeout=30)
        other = httpx.post(base + "/v1/chat/completions", json=ASK, headers={"Origin": "http://localhost:4000"})
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == allowed
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert "authorization" in preflight.headers["access-control-allow-headers"]
    assert answered.status_code == 200 and answered.headers["access-control-allow-origin"] == allowed
    assert other.status_code == 403


def test_a_bad_cors_origin_is_one_line():
    from assistant.server.run import check_origin
    from models.errors import AssistantError

    assert check_origin("http://localhost:3000/") == "http://localhost:3000"
    for bad in ("localhost:3000", "http://localhost:3000/chat", "ftp://x"):
        with pytest.raises(AssistantError, match="--cors-origin"):
            check_origin(bad)


def test_a_preflight_needs_no_key_but_the_request_does(reader, tmp_path):
    allowed = "http://localhost:3000"
    with live_server(factory(reader), tmp_path, api_key="s3cret", cors_origins=(allowed,)) as base:
        preflight = httpx.options(base + "/v1/models", headers={"Origin": allowed,
                                                                "Access-Control-Request-Method": "GET"})
        without = httpx.get(base + "/v1/models", headers={"Origin": allowed})
        with_key = httpx.get(base + "/v1/models", headers={"Origin": allowed, "Authorization": "Bearer s3cret"})
    assert preflight.status_code == 204
    assert without.status_code == 401 and without.json()["error"]["type"] == "authentication_error"
    assert with_key.status_code == 200


# -- source paths by where the client is ------------------------------------------------------------

def test_a_client_on_this_machine_sees_absolute_sources(url):
    citation = httpx.post(url + "/v1/chat/completions", json=ASK, timeout=30).json()["citations"][0]
    assert citation["source"] == FOLDER and citation["path"] == "notes/clinic.md"


def remote_client(reader, tmp_path):
    from assistant.server.app import create_app
    from models.config import Settings

    app = create_app(Settings(data_dir=tmp_path), context_factory=factory(reader), preload=False)
    transport = httpx.ASGITransport(app=app, client=("192.168.1.9", 50123))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8321", timeout=30)


async def test_a_client_on_another_machine_sees_sources_by_their_own_name(reader, tmp_path):
    async with remote_client(reader, tmp_path) as remote:
        reply = (await remote.post("/v1/chat/completions", json=ASK)).json()
        streamed = (await remote.post("/v1/chat/completions", json=dict(ASK, stream=True))).text
        events = (await remote.post("/v1/events", json={"question": "Who founded the clinic?", "model": "rag"})).text
    assert reply["citations"][0]["source"] == "clinic-notes"
    assert reply["citations"][0]["path"] == "notes/clinic.md"  # relative to its folder, as indexed
    assert FOLDER not in json.dumps(reply) and FOLDER not in streamed and FOLDER not in events
    assert "clinic-notes" in streamed and "clinic-notes" in events
