"""The HTTP API (FastAPI): /v1/models (the strategies), /v1/chat/completions (OpenAI-compatible,
streamed or not), /v1/events (a question's step events as a stream) and /health."""
from __future__ import annotations

import hmac
import logging
from contextlib import asynccontextmanager
from typing import Any, Callable, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from assistant.conversation import chat as chat_service
from assistant.events.details import QuestionRewritten
from assistant.events.core import Answer, Token
from assistant.strategies import DEFAULT_STRATEGY, STRATEGIES, make_strategy, parse_spec
from models.config import Settings
from models.errors import AssistantError, BadRequest, Interrupted

from .openai_format import ChunkStream, completion, error_body, question_and_history, sse
from .queue import ReaderQueue

log = logging.getLogger("assistant.server")


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Any = ""


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens...: the strategy decides
    model: str = DEFAULT_STRATEGY
    messages: list[Message] = Field(min_length=1)
    stream: bool = False
    thread: str | None = None  # extension: keep the turn in this saved thread (its turns are the history)


class EventsRequest(BaseModel):
    question: str = Field(min_length=1)
    model: str = DEFAULT_STRATEGY
    thread: str | None = None


def _strategy(spec: str):
    name, _ = parse_spec(spec)
    if name not in STRATEGIES:
        raise BadRequest(404, f"no model (strategy) named {name!r}; GET /v1/models lists them", "model_not_found")
    try:
        return make_strategy(spec)
    except AssistantError as exc:
        raise BadRequest(400, str(exc), "bad_model_options") from None


def create_app(settings: Settings, api_key: str | None = None, context_factory: Callable | None = None,
               preload: bool = True) -> FastAPI:
    """The API over these settings' models and index; with an api_key, every /v1 request must
    carry `Authorization: Bearer KEY`."""
    queue = ReaderQueue()

    @asynccontextmanager
    async def lifespan(_app):
        if preload:  # the first question should not pay for the loads
            queue.run(lambda: _preload(settings, context_factory))
        yield
        queue.close()

    app = FastAPI(title="assistant", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.queue = queue

    @app.middleware("http")
    async def require_key(request: Request, call_next):
        if api_key and request.url.path.startswith("/v1"):
            given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(given.encode(), api_key.encode()):
                return JSONResponse(error_body("a valid API key is required (Authorization: Bearer KEY)",
                                               "invalid_api_key", "authentication_error"), status_code=401)
        return await call_next(request)

    @app.exception_handler(BadRequest)
    async def bad_request(_request, exc: BadRequest):
        return JSONResponse(error_body(exc.message, exc.code), status_code=exc.status)

    @app.exception_handler(AssistantError)
    async def refused(_request, exc: AssistantError):  # a bad thread name, no index...: one line
        return JSONResponse(error_body(str(exc), type(exc).__name__), status_code=400)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        return JSONResponse(error_body(f"bad request: {where or 'body'}: {first.get('msg', 'invalid')}",
                                       "invalid_request"), status_code=400)

    @app.exception_handler(HTTPException)
    async def http_error(_request, exc: HTTPException):
        return JSONResponse(error_body(str(exc.detail), "not_found" if exc.status_code == 404 else "http_error"),
                            status_code=exc.status_code)

    @app.get("/health")
    async def health():
        return {"status": "ok", "waiting": queue.waiting}

    @app.get("/v1/models")
    async def models():
        return {"object": "list", "data": [{"id": name, "object": "model", "created": 0, "owned_by": "assistant"}
                                           for name in STRATEGIES]}

    def asker(question, strategy, thread, history):
        return lambda should_stop: chat_service.ask(question, strategy, settings, thread=thread, history=history,
                                                    should_stop=should_stop, context_factory=context_factory)

    @app.post("/v1/chat/completions")
    async def chat_completions(body: ChatRequest, request: Request):
        strategy = _strategy(body.model)
        question, history = question_and_history(body.messages)
        if body.thread:
            chat_service.threads(settings).load(body.thread, create=True)  # a bad name: a 400 before queueing
            history = []
        ask = asker(question, strategy, body.thread, history)
        if body.stream:
            return StreamingResponse(_chunks(queue, ask, body.model, question), media_type="text/event-stream")
        standalone, answer = question, None
        async for event in queue.events(ask, request.is_disconnected):
            if isinstance(event, QuestionRewritten):
                standalone = event.standalone
            elif isinstance(event, Answer):
                answer = event
        if answer is None:  # the client went away: nobody reads this
            return JSONResponse(error_body("stopped", "cancelled"), status_code=499)
        return completion(body.model, answer, standalone)

    @app.post("/v1/events")
    async def events(body: EventsRequest):
        strategy = _strategy(body.model)
        if body.thread:
            chat_service.threads(settings).load(body.thread, create=True)
        return StreamingResponse(_events(queue, asker(body.question, strategy, body.thread, [])),
                                 media_type="text/event-stream")

    return app


def _preload(settings: Settings, context_factory) -> None:
    from assistant import service

    try:
        context = service.prepare(settings, DEFAULT_STRATEGY, context_factory)
        getattr(context.judge, "name", None)  # the judge too, which a question loads on first use
    except AssistantError as exc:  # said again to each request that needs what is missing
        log.warning("models not preloaded: %s", exc)


async def _chunks(queue: ReaderQueue, ask, model: str, question: str):
    stream = ChunkStream(model)
    standalone = question
    yield stream.start()
    try:
        async for event in queue.events(ask):
            if isinstance(event, QuestionRewritten):
                standalone = event.standalone
            elif isinstance(event, Token):
                chunk = stream.token(event)
                if chunk:
                    yield chunk
            elif isinstance(event, Answer):
                yield stream.finish(event, standalone)
    except (AssistantError, Interrupted) as exc:
        yield sse(error_body(str(exc), type(exc).__name__))
        yield sse("[DONE]")


async def _events(queue: ReaderQueue, ask):
    try:
        async for event in queue.events(ask):
            yield sse(event.to_dict())
    except (AssistantError, Interrupted) as exc:
        yield sse({"type": "error", "message": str(exc)})
    yield sse("[DONE]")
