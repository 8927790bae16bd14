"""Every error the server writes, as OpenAI's JSON error object: {"error": {message, type, code,
param}}. A client's mistake is a 4xx naming the field (`param`); what the server lacks or cannot
do (no index, a model missing, a full queue) is a 5xx or a 429 that says what to do."""
from __future__ import annotations

import json
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from models.errors import (AssistantError, BadInputError, BadRequest, ConfigError, IndexBusy, IndexProblem,
                           Interrupted, ModelError)

log = logging.getLogger("assistant.server")


class ApiError(Exception):
    """A refusal with its HTTP status, OpenAI error type and code, the field at fault, and any
    headers (Retry-After)."""

    def __init__(self, status: int, message: str, code: str = "invalid_request", param: str | None = None,
                 kind: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param
        self.kind = kind or _kind_of(status)
        self.headers = headers or {}

    def body(self) -> dict:
        return error_body(self.message, self.code, self.kind, self.param)

    def response(self) -> JSONResponse:
        return _AsciiJSON(self.body(), status_code=self.status, headers=self.headers)


class _AsciiJSON(JSONResponse):
    """An error's JSON with non-ASCII escaped: a message quoting a client's text that is not
    UTF-8 (a lone surrogate) still renders, instead of failing as a plain-text 500."""

    def render(self, content) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _kind_of(status: int) -> str:
    if status == 401:
        return "authentication_error"
    if status == 429:
        return "rate_limit_error"
    return "server_error" if status >= 500 else "invalid_request_error"


def error_body(message: str, code: str, kind: str = "invalid_request_error", param: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "code": code, "param": param}}


def error_bytes(status: int, message: str, code: str, param: str | None = None) -> bytes:
    """The JSON body of an error written below FastAPI (the HTTP guards)."""
    return json.dumps(error_body(message, code, _kind_of(status), param)).encode("utf-8")


def api_error_of(exc: BaseException) -> ApiError:
    """The HTTP answer to an error raised while serving a request."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, BadRequest):
        return ApiError(exc.status, exc.message, exc.code, param="model" if exc.code.startswith("model") else None)
    if isinstance(exc, IndexBusy):
        return ApiError(503, f"{exc}; ask again in a moment", "index_busy", headers={"Retry-After": "5"})
    if isinstance(exc, IndexProblem):  # the server's own state, not the request's fault
        return ApiError(503, f"this server cannot search its documents: {exc}. Build or repair the index on "
                             "the server's machine, or ask with model \"direct\" (no documents)", "index_unavailable")
    if isinstance(exc, ModelError):
        return ApiError(503, f"this server cannot load a model: {exc}", "model_unavailable")
    if isinstance(exc, Interrupted):
        return ApiError(499, "stopped: the client went away", "cancelled")
    if isinstance(exc, (BadInputError, ConfigError, AssistantError)):  # a bad thread name, an empty question...
        return ApiError(400, str(exc), type(exc).__name__)
    log.exception("unexpected error while serving a request", exc_info=exc)
    return ApiError(500, f"the server failed: {type(exc).__name__}; its log has the details", "internal_error")


_TYPE_TAGS = {"str", "int", "float", "bool", "dict", "list", "none", "tuple"}


def _field(loc: tuple) -> str:
    """A validation error's location as OpenAI names a field: messages[0].content (pydantic's
    tags for the member of a union that failed, such as `list[dict[str,any]]`, left out)."""
    out = ""
    for part in loc:
        if part == "body":
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        elif not ("[" in str(part) or "-" in str(part) or part in _TYPE_TAGS):
            out += f".{part}" if out else str(part)
    return out


def install(app: FastAPI) -> None:
    """JSON for every error FastAPI and Starlette would otherwise answer in their own words."""

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError):
        return exc.response()

    @app.exception_handler(AssistantError)
    async def assistant_error(_request: Request, exc: AssistantError):
        return api_error_of(exc).response()

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = _field(tuple(first.get("loc", ())))
        message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        if first.get("type") == "json_invalid":
            return ApiError(400, "the body is not valid JSON", "invalid_json").response()
        return ApiError(400, f"bad request: {where or 'body'}: {message}", "invalid_request",
                        param=where or None).response()

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, exc: HTTPException):
        if isinstance(exc.__cause__, ApiError):  # raised while FastAPI read the body (guards.py)
            return exc.__cause__.response()
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return ApiError(exc.status_code, str(exc.detail), code, headers=dict(exc.headers or {})).response()

    @app.exception_handler(Exception)
    async def failed(_request: Request, exc: Exception):
        return api_error_of(exc).response()
