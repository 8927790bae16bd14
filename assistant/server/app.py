"""The HTTP API (FastAPI): /v1/models (the strategies), /v1/chat/completions (OpenAI-compatible,
streamed or not), /v1/events (a question's step events as a stream), /v1/search (passages
alone, no reader), /mcp (the MCP tools over streamable HTTP) and /health. Every request passes
the guards first (guards.py)."""
from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager, nullcontext
from dataclasses import replace
from typing import Callable

from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from assistant.conversation import chat as chat_service
from assistant.services import search as search_service
from assistant.services.collections import check_name as check_collection
from assistant.events.details import QuestionRewritten
from assistant.events.core import Answer, Token
from assistant.strategies import DEFAULT_STRATEGY, STRATEGIES, make_strategy, parse_spec
from models.config import Settings
from models.errors import AssistantError

from . import api_errors
from .api_errors import ApiError, api_error_of
from .chat_request import (ChatRequest, EventsRequest, SearchRequest, answer_options, message_texts,
                           refuse_unsupported, utf8)
from .guards import Guards, Policy
from .openai_format import ChunkStream, completion, question_and_history, sse
from .peers import is_local, scrubbed_event
from .queue import DEFAULT_SIZE, ReaderQueue

log = logging.getLogger("assistant.server")


def _strategy(spec: str):
    name, _ = parse_spec(spec)
    if name not in STRATEGIES:
        raise ApiError(404, f"no model (strategy) named {name!r}; GET /v1/models lists them", "model_not_found",
                       param="model")
    try:
        return make_strategy(spec)
    except AssistantError as exc:
        raise ApiError(400, str(exc), "bad_model_options", param="model") from None


def _model_row(name: str) -> dict:
    return {"id": name, "object": "model", "created": 0, "owned_by": "assistant"}


def create_app(settings: Settings, api_key: str | None = None, context_factory: Callable | None = None,
               preload: bool = True, policy: Policy | None = None, queue_size: int = DEFAULT_SIZE,
               searcher: Callable | None = None, mcp: bool = True) -> FastAPI:
    """The API over these settings' models and index. `policy`: who may ask (guards.Policy; by
    default loopback names on any port); an api_key (here or in the policy) is required on every
    /v1 and /mcp request as `Authorization: Bearer KEY`. `searcher(query, k, collection)`: the hits of
    /v1/search (default: search_service over the index). `mcp`: serve the MCP tools at /mcp too."""
    queue = ReaderQueue(queue_size)
    policy = replace(policy or Policy(), api_key=api_key or (policy.api_key if policy else None))
    search = searcher or (lambda query, k, collection: search_service.search(settings, query, k, collection))

    mcp_routes, mcp_sessions = _mcp(settings, context_factory, search) if mcp else ([], None)

    @asynccontextmanager
    async def lifespan(_app):
        if preload:  # the first question should not pay for the loads
            queue.run(lambda: _preload(settings, context_factory))
        async with mcp_sessions.run() if mcp_sessions is not None else nullcontext():
            yield
        queue.close()

    app = FastAPI(title="assistant", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.queue = queue
    app.add_middleware(Guards, policy=policy)
    api_errors.install(app)
    app.router.routes.extend(mcp_routes)  # MCP over HTTP at /mcp (its tools: assistant/mcp_server)

    @app.get("/health")
    async def health():
        return {"status": "ok", "waiting": queue.waiting, "queue_size": queue.size}

    @app.get("/v1/models")
    async def models():
        return {"object": "list", "data": [_model_row(name) for name in STRATEGIES]}

    @app.get("/v1/models/{model_id:path}")
    async def model(model_id: str):
        """Every id chat accepts (a strategy with options too: `rag:rerank=true`); others a 404."""
        try:
            _strategy(model_id)
        except ApiError as exc:  # an unknown name, or options the strategy refuses
            raise ApiError(404, exc.message, "model_not_found", param="model") from None
        return _model_row(model_id)

    def asker(question, strategy, thread, history, options=None, collection=None):
        within = replace(settings, collection=check_collection(collection)) if collection is not None else settings
        return lambda should_stop: chat_service.ask(question, strategy, within, thread=thread, history=history,
                                                    should_stop=should_stop, context_factory=context_factory,
                                                    answer_options=options)

    @app.post("/v1/chat/completions")
    async def chat_completions(body: ChatRequest, request: Request):
        strategy = _strategy(body.model)
        refuse_unsupported(body)
        question, history, instructions = question_and_history(message_texts(body))
        options = answer_options(body, instructions)
        if body.thread:
            chat_service.threads(settings).load(utf8(body.thread, "thread"), create=True)  # a bad name: 400 now
            history = []
        ask = asker(question, strategy, body.thread, history, options, body.collection)
        local = is_local(request)
        place = queue.take_place()  # a full queue: 429 now, before any answer starts
        if body.stream:
            include_usage = bool(body.stream_options and body.stream_options.include_usage)
            stream = ChunkStream(body.model, include_usage, local)
            return StreamingResponse(_chunks(queue, ask, place, stream, question), media_type="text/event-stream",
                                     background=BackgroundTask(place.release))
        standalone, answer = question, None
        try:
            async for event in queue.events(ask, place, request.is_disconnected):
                if isinstance(event, QuestionRewritten):
                    standalone = event.standalone
                elif isinstance(event, Answer):
                    answer = event
        finally:
            place.release()
        if answer is None:  # the client went away: nobody reads this
            raise ApiError(499, "stopped: the client went away", "cancelled")
        return completion(body.model, answer, standalone, local)

    @app.post("/v1/events")
    async def events(body: EventsRequest, request: Request):
        strategy = _strategy(body.model)
        question = utf8(body.question, "question")
        if body.thread:
            chat_service.threads(settings).load(utf8(body.thread, "thread"), create=True)
        ask = asker(question, strategy, body.thread, [], collection=body.collection)
        place = queue.take_place()
        return StreamingResponse(_events(queue, ask, place, is_local(request)),
                                 media_type="text/event-stream", background=BackgroundTask(place.release))

    @app.post("/v1/search")
    async def search_passages(body: SearchRequest, request: Request):
        query = utf8(body.query, "query")
        hits = await asyncio.to_thread(search, query, body.k, body.collection)
        return {"object": "list", "data": [hit.as_dict(local=is_local(request)) for hit in hits]}

    return app


def _mcp(settings: Settings, context_factory, search):
    """The MCP routes over this server's models and search (their asks share the reader's lock,
    not the queue: an agent's question waits for the reader like any other)."""
    from assistant.mcp_server.documents import Documents
    from assistant.mcp_server.server import http_routes

    return http_routes(Documents(settings, context_factory, search))


def _preload(settings: Settings, context_factory) -> None:
    from assistant import service

    try:
        context = service.prepare(settings, DEFAULT_STRATEGY, context_factory)
        getattr(context.judge, "name", None)  # the judge too, which a question loads on first use
    except AssistantError as exc:  # said again to each request that needs what is missing
        log.warning("models not preloaded: %s", exc)


async def _chunks(queue: ReaderQueue, ask, place, stream: ChunkStream, question: str):
    standalone = question
    yield stream.start()
    try:
        async for event in queue.events(ask, place):
            if isinstance(event, QuestionRewritten):
                standalone = event.standalone
            elif isinstance(event, Token):
                chunk = stream.token(event)
                if chunk:
                    yield chunk
            elif isinstance(event, Answer):
                yield stream.finish(event, standalone)
    except Exception as exc:  # the status is sent: the error travels as an event, then [DONE]
        yield sse(api_error_of(exc).body())
        yield sse("[DONE]")


async def _events(queue: ReaderQueue, ask, place, local: bool):
    try:
        async for event in queue.events(ask, place):
            yield sse(event.to_dict() if local else scrubbed_event(event.to_dict()))
    except Exception as exc:
        yield sse({"type": "error", "message": api_error_of(exc).message})
    yield sse("[DONE]")
