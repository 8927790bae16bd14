"""What an agent's MCP client meets (issue 63), through the official `mcp` client over stdio and
over serve's /mcp, on fake models: the ask tool's steps as progress notifications while it works,
its time bound, annotations on every tool, structured results (answer, label, citations with file
and place) beside a text that says the label, and the indexed files as resources."""
import anyio
import pytest
from helpers.mcp_stdio import fake_params, index_examples, session_run

mcp = pytest.importorskip("mcp")

ASK = {"question": "How many days of paid holiday?", "strategy": "rag"}


@pytest.fixture
def data(tmp_path):
    return index_examples(tmp_path / "data")


def test_the_ask_tool_reports_its_steps_as_progress(data, tmp_path):
    heard = []

    async def progress(value, total, message):
        heard.append((value, message))

    async def steps(session):
        return await session.call_tool("ask_documents", ASK, progress_callback=progress)

    result = session_run(fake_params(data), steps, (tmp_path / "stderr.txt").open("w"))
    assert not result.is_error, result.content
    assert len(heard) >= 2 and [v for v, _ in heard] == sorted(v for v, _ in heard)  # counts up
    assert all(message for _, message in heard)
    assert any("looked up" in message.lower() for _, message in heard), heard  # a step in words


def test_an_ask_past_its_time_bound_is_stopped_with_one_line(data, tmp_path):
    slow = "CountingReader(delay=0.5, words=200)"  # 100 s if nothing stops it

    async def steps(session):
        with anyio.fail_after(60):
            return await session.call_tool("ask_documents", {**ASK, "max_seconds": 5})

    result = session_run(fake_params(data, slow), steps, (tmp_path / "stderr.txt").open("w"))
    assert result.is_error and "longer than 5 s" in result.content[0].text and "rag" in result.content[0].text


def test_every_tool_is_annotated_and_ask_answers_structured_and_in_words(data, tmp_path):
    async def steps(session):
        tools = (await session.list_tools()).tools
        return tools, await session.call_tool("ask_documents", ASK)

    tools, result = session_run(fake_params(data), steps, (tmp_path / "stderr.txt").open("w"))
    for tool in tools:
        hints = tool.annotations
        assert hints is not None and hints.read_only_hint is True and hints.open_world_hint is False, tool.name
        assert hints.destructive_hint is False and hints.title
    ask = next(t for t in tools if t.name == "ask_documents")
    assert {"answer", "grounding", "citations"} <= set(ask.output_schema["properties"])
    row = result.structured_content
    assert row["answer"].startswith("Staff have 30 days") and row["grounding"] == "not checked" and row["meaning"]
    assert row["citations"] and {"file", "where", "text"} <= set(row["citations"][0])
    text = result.content[0].text
    assert text.startswith("Staff have 30 days") and "Sources" in text and "Grounding: not checked" in text
    assert row["citations"][0]["where"] in text


def test_the_indexed_files_are_resources(data, tmp_path):
    async def steps(session):
        listed = (await session.list_resources()).resources
        handbook = next(r for r in listed if r.name == "handbook.md")
        return listed, await session.read_resource(handbook.uri)

    listed, read = session_run(fake_params(data), steps, (tmp_path / "stderr.txt").open("w"))
    assert len(listed) >= 3 and all(str(r.uri).startswith("assistant://documents/") for r in listed)
    assert "holiday" in read.contents[0].text.lower() and read.contents[0].text.startswith("handbook.md")


def test_without_an_index_there_are_no_resources_and_no_error(tmp_path):
    async def steps(session):
        return (await session.list_resources()).resources

    assert session_run(fake_params(tmp_path / "empty"), steps, (tmp_path / "stderr.txt").open("w")) == []


def test_serves_mcp_reports_progress_too(tmp_path):
    from mcp.client import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from helpers.fakes import FakeRetriever, make_context
    from helpers.live_server import live_server
    from helpers.serve_fakes import DOCS, CountingReader

    heard = []

    async def progress(value, total, message):
        heard.append(message)

    async def steps(url):
        async with streamable_http_client(url + "/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool("ask_documents", {"question": "Who founded the clinic?",
                                                                 "strategy": "rag"}, progress_callback=progress)

    reader = CountingReader()
    with live_server(lambda settings, strategy: make_context(reader=reader, retriever=FakeRetriever(DOCS)),
                     tmp_path) as base:
        result = anyio.run(steps, base)
    assert result.structured_content["answer"].startswith("Dr. Ada Lane") and len(heard) >= 2
