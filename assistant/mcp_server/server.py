"""The MCP server (the official `mcp` SDK's MCPServer over stdio): four tools over Documents, each
described so that an agent knows when it helps and marked read-only and closed-world (tool
annotations). A failure is the tool's error, one line. The ask tool reports its steps as progress
(progress.py), stops past its time bound, and answers twice: structured and as text with the label
in words (results.py). Also served over HTTP at /mcp by `assistant serve` (http_routes)."""
# No `from __future__ import annotations`: the SDK reads the tools' annotations (the Context
# parameter, the result's schema) as objects, and those are imported inside build().
from typing import Annotated, Any

from pydantic import Field

from models.config import Settings
from models.errors import AssistantError

from .documents import Documents

INSTRUCTIONS = (
    "This server holds one person's own documents (notes, PDFs, manuals...), indexed on their machine. "
    "search_documents finds passages fast (no language model runs); ask_documents answers a question with "
    "citations and an honesty label, using a local model (slow: seconds to minutes). list_sources and "
    "list_collections say what is indexed. Trust an answer as the documents' only when its grounding is "
    "'supported'."
)
SEARCH = (
    "Search the person's indexed documents (vector and keyword search fused) and return the best passages, "
    "each with its file, page or section, and its text. Fast: no language model runs. Use it to find where "
    "something is written, to quote a document, or to gather passages you will read and reason over yourself. "
    "Narrow it to one collection (see list_collections) when the person names one."
)
ASK = (
    "Ask the local assistant a question answered from the person's documents. Returns a short answer with "
    "[n] markers, the cited passages (file, page or section, text) and a grounding label: 'supported' (the "
    "cited passages support the answer), 'pieced together' (the pages were found but none states the answer: "
    "a pick between options or the last step of a chain), 'written, not confirmed' (a cited file writes the answer, "
    "but the check could not confirm it answers the question: say so, naming the file), 'not in your documents' (they do not: do not present the answer as "
    "the documents'; the closest passages are given instead) or 'from memory' (the local model's own "
    "knowledge). Slow (a local model runs: seconds to a minute; its steps come as progress notifications; "
    "stopped after max_seconds, 50 by default). Use it when you want a checked, cited answer; use "
    "search_documents when you want the passages themselves."
)
SOURCES = ("List what is indexed: each source (a folder, a file, a Wikipedia dump...) with its kind, its "
           "documents and passages, and its collections. Use it to tell the person what can be searched.")
COLLECTIONS = ("List the index's named collections (e.g. work, personal) with their sizes. Use a name with "
               "search_documents or ask_documents to search within that collection only.")

Query = Annotated[str, Field(description="Words or a question to search for.", min_length=1, max_length=2000)]
Question = Annotated[str, Field(description="The question, standing alone (name what 'it' refers to).",
                                min_length=1, max_length=4000)]
K = Annotated[int, Field(description="How many passages (1-50).", ge=1, le=50)]
Collection = Annotated[str | None, Field(description="Search only this collection; omit for all.")]
Strategy = Annotated[str, Field(description="The answering strategy: default (checked, cited), rag (plain "
                                            "retrieve-and-read, faster), direct (no documents).")]
DOCUMENT_URI = "assistant://documents/"  # + a document's id: its indexed text, as a resource
ASK_SECONDS = 50.0  # under the 60 s after which TypeScript-SDK clients (desktop chat apps) give up on a call
Seconds = Annotated[float, Field(description="Stop the question after this many seconds (raise it if your "
                                             "client waits longer than 60 s).", ge=5, le=3600)]



def build(settings: Settings, documents: Documents | None = None):
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent, ToolAnnotations

    from .progress import Deadline, run_with_progress
    from .results import Asked, answer_row, answer_text

    docs = documents or Documents(settings)
    server = _with_file_resources(MCPServer, docs)(name="assistant", instructions=INSTRUCTIONS, log_level="WARNING")

    def reads(title: str) -> ToolAnnotations:  # every tool reads the person's own index, changes nothing
        return ToolAnnotations(title=title, read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                               open_world_hint=False)

    def checked(fn, *args) -> dict[str, Any]:
        try:
            return fn(*args)
        except AssistantError as exc:  # no index, an unknown collection, a model missing: one line
            raise ToolError(str(exc)) from None

    @server.tool(description=SEARCH, annotations=reads("Search the documents"))
    def search_documents(query: Query, k: K = 5, collection: Collection = None) -> dict[str, Any]:
        return checked(docs.search, query, k, collection)

    @server.tool(description=ASK, annotations=reads("Ask the documents"))
    async def ask_documents(question: Question, ctx: Context, collection: Collection = None,
                            strategy: Strategy = "default",
                            max_seconds: Seconds = ASK_SECONDS) -> Annotated[CallToolResult, Asked]:
        def work(on_event, should_stop):
            return checked(docs.ask, question, collection, strategy, on_event, should_stop)

        try:
            answer = await run_with_progress(ctx.report_progress, work, max_seconds)
        except Deadline:
            raise ToolError(f"the question took longer than {max_seconds:g} s and was stopped; ask again with "
                            "strategy \"rag\" (faster), with a larger max_seconds if your client waits longer, "
                            "or use search_documents") from None
        return CallToolResult(content=[TextContent(type="text", text=answer_text(answer))],
                              structured_content=answer_row(answer))

    @server.resource(DOCUMENT_URI + "{doc_id}", name="document", mime_type="text/plain",
                     description="An indexed file's text as the index holds it (its passages in reading order).")
    def read_document(doc_id: str) -> str:
        return checked(docs.file_text, doc_id)

    @server.tool(description=SOURCES, annotations=reads("List the indexed sources"))
    def list_sources() -> dict[str, Any]:
        return checked(docs.sources)

    @server.tool(description=COLLECTIONS, annotations=reads("List the collections"))
    def list_collections() -> dict[str, Any]:
        return checked(docs.collections)

    return server


def _with_file_resources(base, docs: Documents):
    """The server class whose resource list is the index's files, read when a client lists them
    (the index changes while the server runs); none when there is no index yet."""
    import anyio.to_thread
    from mcp_types import Resource

    class DocumentsServer(base):
        async def list_resources(self):
            try:
                files = await anyio.to_thread.run_sync(docs.files)
            except AssistantError:
                files = []
            return [*await super().list_resources(),
                    *(Resource(uri=DOCUMENT_URI + f["doc_id"], name=f["file"] or f["title"], title=f["title"] or None,
                               description=f"{f['file']} in {f['source']} ({f['passages']} passages)",
                               mime_type="text/plain") for f in files)]

    return DocumentsServer


def run_stdio(settings: Settings) -> None:
    """Serve MCP on stdin/stdout until the client closes them; every line answered (stdio_guard)."""
    from .stdio_guard import serve

    serve(build(settings))


def http_routes(documents: Documents) -> tuple[list, object]:
    """MCP over streamable HTTP at /mcp, for `assistant serve` to add to its own routes: (the
    routes, the session manager whose run() must span the serving app's lifespan). The serving
    app's guards check the Host, the Origin and the API key, as for its other routes."""
    from mcp.server.transport_security import TransportSecuritySettings

    server = build(documents.settings, documents)
    app = server.streamable_http_app(streamable_http_path="/mcp", transport_security=TransportSecuritySettings(
        enable_dns_rebinding_protection=False))
    return list(app.routes), server.session_manager
