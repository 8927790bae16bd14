"""`assistant mcp` (issue 52) through the official `mcp` client over stdio: the tools listed with
descriptions that say when each helps, search (passages with file, section and text) without the
reader loading, ask (answer, citations, grounding label) with the reader loaded once for every
ask, the sources and collections listed, and failures as tool errors. First over fake models in
a launcher process, then (real_models) `assistant mcp` itself on examples/docs."""
import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from helpers.mcp_stdio import ROOT, environment, fake_params, index_examples, session_run

mcp = pytest.importorskip("mcp")
from mcp.client import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

TOOLS = {"search_documents", "ask_documents", "list_sources", "list_collections"}


def structured(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


@pytest.fixture
def fake_index(tmp_path):
    return index_examples(tmp_path / "data")


def test_the_tools_search_ask_and_list_over_stdio(fake_index, tmp_path):
    params = fake_params(fake_index)
    errlog = (tmp_path / "stderr.txt").open("w+")

    async def steps(session):
        tools = (await session.list_tools()).tools
        found = structured(await session.call_tool("search_documents", {"query": "paid holiday days", "k": 3}))
        errlog.flush()
        loaded_by_search = Path(errlog.name).read_text().count("reader loaded")
        first = structured(await session.call_tool("ask_documents", {"question": "How many days of paid holiday?",
                                                                     "strategy": "rag"}))
        second = structured(await session.call_tool("ask_documents", {"question": "Who leads Project Heron?",
                                                                      "strategy": "rag"}))
        sources = structured(await session.call_tool("list_sources", {}))
        collections = structured(await session.call_tool("list_collections", {}))
        unknown = await session.call_tool("search_documents", {"query": "x", "collection": "nope"})
        bad = await session.call_tool("search_documents", {"query": "x", "k": 500})
        return tools, found, loaded_by_search, first, second, sources, collections, unknown, bad

    tools, found, loaded_by_search, first, second, sources, collections, unknown, bad = session_run(params, steps,
                                                                                                    errlog)
    assert {t.name for t in tools} == TOOLS
    described = {t.name: t.description for t in tools}
    assert "Fast" in described["search_documents"] and "Slow" in described["ask_documents"]
    assert "supported" in described["ask_documents"] and "not in your documents" in described["ask_documents"]
    passages = found["passages"]
    assert len(passages) == 3 and {"file", "where", "page", "section", "text"} <= set(passages[0])
    assert any(p["where"] == "handbook.md § Holidays" for p in passages)
    assert loaded_by_search == 0, "a search loaded the reader"
    assert first["answer"].startswith("Staff have 30 days") and first["citations"]
    assert first["grounding"] == "not checked"  # rag does not check; the default strategy labels its answers
    assert second["answer"] and Path(errlog.name).read_text().count("reader loaded") == 1  # loaded once, kept
    assert sources["sources"][0]["name"].endswith("examples/docs") and sources["passages"] > 0
    assert collections["collections"][0]["name"] == "default"
    assert unknown.is_error and "no collection 'nope'" in unknown.content[0].text
    assert bad.is_error


def test_without_an_index_a_tool_says_so(tmp_path):
    params = fake_params(tmp_path / "data")

    async def steps(session):
        return await session.call_tool("search_documents", {"query": "holiday"})

    result = session_run(params, steps, (tmp_path / "stderr.txt").open("w"))
    assert result.is_error and "no index" in result.content[0].text and "assistant index add" in result.content[0].text


@pytest.mark.real_models
def test_assistant_mcp_on_examples_docs(tmp_path):
    env = environment(tmp_path / "data")
    built = subprocess.run([sys.executable, "-m", "assistant", "index", "add", str(ROOT / "examples" / "docs")],
                           env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    params = StdioServerParameters(command=sys.executable, args=["-m", "assistant", "mcp"], env=env)

    async def steps(session):
        tools = (await session.list_tools()).tools
        found = structured(await session.call_tool("search_documents", {"query": "Who leads Project Heron?"}))
        answer = structured(await session.call_tool("ask_documents", {"question": "Who leads Project Heron?"}))
        return tools, found, answer

    tools, found, answer = session_run(params, steps, (tmp_path / "stderr.txt").open("w"))
    assert {t.name for t in tools} == TOOLS
    assert found["passages"][0]["file"] == "projects/heron.md" and "Mira Okafor" in found["passages"][0]["text"]
    assert answer["answer"] and answer["grounding"] in ("supported", "not in your documents", "from memory")
    assert answer["meaning"] and isinstance(answer["citations"], list)
    if answer["grounding"] == "supported":
        assert answer["citations"] and all(c["file"] and c["text"] for c in answer["citations"])


def test_serve_offers_the_same_tools_over_http_at_mcp(tmp_path):
    from mcp.client.streamable_http import streamable_http_client

    from helpers.fakes import FakeReader, FakeRetriever, make_context
    from helpers.live_server import live_server

    from assistant.services.search import Hit

    reader = FakeReader(lambda prompt: "Dr. Ada Lane founded it.")
    retriever = FakeRetriever({"clinic": "The Harbor Clinic was founded by Dr. Ada Lane in 1990."})
    hit = Hit(rank=1, file="clinic.md", title="clinic", page=None, section="History", snippet="The Harbor Clinic…",
              text="The Harbor Clinic was founded by Dr. Ada Lane in 1990.", source="/notes", folder="notes",
              score=0.5, passage_id="clinic")
    searches = []
    searcher = lambda query, k, collection: searches.append((query, k, collection)) or [hit]  # noqa: E731

    async def steps(url):
        async with streamable_http_client(url + "/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                found = structured(await session.call_tool("search_documents", {"query": "clinic founder", "k": 2}))
                answer = structured(await session.call_tool("ask_documents", {"question": "Who founded the clinic?",
                                                                              "strategy": "rag"}))
                return tools, found, answer

    with live_server(lambda settings, strategy: make_context(reader=reader, retriever=retriever), tmp_path,
                     searcher=searcher) as base:
        tools, found, answer = anyio.run(steps, base)
        import httpx

        rebound = httpx.post(base + "/mcp", json={}, headers={"Host": "evil.example"})
    assert {t.name for t in tools} == TOOLS
    assert found["passages"][0]["where"] == "clinic.md § History" and searches == [("clinic founder", 2, None)]
    assert answer["answer"].startswith("Dr. Ada Lane founded it.") and answer["citations"][0]["file"] == "clinic.md"
    assert reader.stats.calls == 1  # the server's own models answered
    assert rebound.status_code == 421
