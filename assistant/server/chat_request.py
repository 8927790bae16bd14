"""A chat-completions request checked field by field: types and ranges (a string for `stream` or a
negative `max_tokens` is a 400 naming the field), and what this assistant cannot do (several
choices, tools, a JSON response format, images, reasoning effort) refused by name. OpenAI's
bookkeeping fields that clients send by default (`user`, `metadata`, `store`...) are accepted and
do nothing; any other field is a 400 naming it: nothing is silently ignored."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator

from assistant.answering.answer_options import AnswerOptions
from assistant.strategies import DEFAULT_STRATEGY

from .api_errors import ApiError

MAX_ANSWER_TOKENS = 8192  # the settings' own bound on max_answer_tokens
MAX_STOPS = 4  # as OpenAI allows
TEXT_PARTS = ("text", "input_text")
Temperature = Annotated[float, Field(ge=0, le=2, strict=True)]
Probability = Annotated[float, Field(ge=0, le=1, strict=True)]
Tokens = Annotated[StrictInt, Field(ge=1, le=MAX_ANSWER_TOKENS)]


def utf8(text: str, where: str) -> str:
    """`text`, or a 400 naming the field when it holds a lone surrogate (not UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ApiError(400, f"{where} is not UTF-8 text: it holds the lone surrogate U+{ord(text[exc.start]):04X} "
                            f"at character {exc.start + 1}", "invalid_text", param=where) from None
    return text


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")  # name, and fields of newer API versions
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: StrictStr | list[dict[str, Any]] | None = ""


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: StrictBool = False


# OpenAI's fields that say who asks or how OpenAI should keep the request: nothing to do here,
# and clients send some of them unasked (the `user` of a chat front end). Accepted, no effect.
NO_OP_FIELDS = ("user", "metadata", "store", "safety_identifier", "prompt_cache_key", "prompt_cache_retention",
                "service_tier", "parallel_tool_calls")
EXTENSIONS = ("thread", "collection")
# What Open WebUI keeps of its own chat in the body (some versions pass these on to the model's
# server): its chat and message ids, attached files and tools it has already handled itself.
# Accepted, no effect, so that it can talk to this server at all.
FRONT_END_FIELDS = frozenset({"chat_id", "id", "session_id", "parent_id", "parent_message", "variables", "features",
                              "files", "tool_ids", "tool_servers", "background_tasks", "model_item", "filter_ids",
                              "params"})


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # kept to be refused by name (refuse_unsupported)
    model: StrictStr = DEFAULT_STRATEGY
    messages: list[Message] = Field(min_length=1)
    stream: StrictBool = False
    stream_options: StreamOptions | None = None
    max_tokens: Tokens | None = None
    max_completion_tokens: Tokens | None = None
    stop: StrictStr | list[StrictStr] | None = None
    temperature: Temperature | None = None
    top_p: Probability | None = None
    seed: StrictInt | None = None
    n: Annotated[StrictInt, Field(ge=1, le=128)] | None = None
    presence_penalty: Annotated[float, Field(ge=-2, le=2, strict=True)] | None = None
    frequency_penalty: Annotated[float, Field(ge=-2, le=2, strict=True)] | None = None
    logprobs: StrictBool | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: StrictStr | dict[str, Any] | None = None
    functions: list[dict[str, Any]] | None = None
    function_call: StrictStr | dict[str, Any] | None = None
    response_format: dict[str, Any] | None = None
    logit_bias: dict[str, Any] | None = None
    modalities: list[StrictStr] | None = None
    top_logprobs: Annotated[StrictInt, Field(ge=0, le=20)] | None = None
    reasoning_effort: StrictStr | None = None
    verbosity: StrictStr | None = None
    audio: dict[str, Any] | None = None
    prediction: dict[str, Any] | None = None
    web_search_options: dict[str, Any] | None = None
    user: StrictStr | None = None  # the NO_OP_FIELDS from here to `thread`
    metadata: dict[str, Any] | None = None
    store: StrictBool | None = None
    safety_identifier: StrictStr | None = None
    prompt_cache_key: StrictStr | None = None
    prompt_cache_retention: StrictStr | None = None
    service_tier: StrictStr | None = None
    parallel_tool_calls: StrictBool | None = None
    thread: StrictStr | None = None  # extension: keep the turn in this saved thread
    collection: StrictStr | None = None  # extension: search only this collection

    @field_validator("stop")
    @classmethod
    def _stops(cls, value):
        stops = [value] if isinstance(value, str) else list(value or [])
        if len(stops) > MAX_STOPS:
            raise ValueError(f"at most {MAX_STOPS} stop sequences")
        return tuple(s for s in stops if s)


class EventsRequest(BaseModel):
    """/v1/events (the CLI's client): a question's step events."""

    question: StrictStr = Field(min_length=1)
    model: StrictStr = DEFAULT_STRATEGY
    thread: StrictStr | None = None
    collection: StrictStr | None = None


class SearchRequest(BaseModel):
    query: StrictStr = Field(min_length=1)
    k: Annotated[StrictInt, Field(ge=1, le=50)] = 5
    collection: StrictStr | None = None


def refuse_unsupported(body: ChatRequest) -> None:
    """A 400 naming the first field that asks for what no strategy can give."""
    def no(param: str, message: str) -> ApiError:
        return ApiError(400, message, "unsupported_parameter", param=param)

    unknown = next((name for name in body.model_extra or {} if name not in FRONT_END_FIELDS), None)
    if unknown is not None:
        raise ApiError(400, f"unknown field {unknown!r}: not one of OpenAI's chat-completions fields nor this "
                            f"server's extensions ({', '.join(EXTENSIONS)}); remove it", "unknown_parameter",
                       param=unknown)
    if body.n not in (None, 1):
        raise no("n", "n > 1 is not supported: one answer per request (ask again for another)")
    if body.tools:
        raise no("tools", "tools are not supported: this assistant answers from your documents and does not "
                          "call functions; use its MCP server (`assistant mcp`) to give an agent its search")
    if body.tool_choice not in (None, "none", "auto"):
        raise no("tool_choice", "tool_choice is not supported: this assistant calls no tools")
    if body.functions or body.function_call not in (None, "none", "auto"):
        raise no("functions" if body.functions else "function_call", "function calling is not supported")
    kind = (body.response_format or {}).get("type", "text")
    if kind != "text":
        raise no("response_format", f"response_format {kind!r} is not supported: answers are text with "
                                    "citations (the structured citations come in the `citations` field)")
    if body.logprobs or body.top_logprobs:
        name = "logprobs" if body.logprobs else "top_logprobs"
        raise no(name, f"{name} is not supported: the answer's tokens come without their probabilities")
    if body.logit_bias:
        raise no("logit_bias", "logit_bias is not supported")
    for name in ("presence_penalty", "frequency_penalty"):
        if getattr(body, name):
            raise no(name, f"{name} is not supported (only 0)")
    if body.modalities and set(body.modalities) - {"text"}:
        raise no("modalities", "only text answers are supported")
    for name, why in (("reasoning_effort", "the reader does not reason in hidden steps"),
                      ("verbosity", "give the answer's length in a system message or with max_tokens"),
                      ("audio", "only text answers are supported"), ("prediction", "predicted outputs are not used"),
                      ("web_search_options", "this assistant searches your documents, not the web")):
        if getattr(body, name) is not None:
            raise no(name, f"{name} is not supported: {why}")
    for i, message in enumerate(body.messages):
        if message.role in ("tool", "function") or getattr(message, "tool_calls", None):
            raise no(f"messages[{i}]", "tool and function messages are not supported: this assistant calls no tools")
        if isinstance(message.content, list):
            for j, part in enumerate(message.content):
                if part.get("type") not in TEXT_PARTS:
                    raise no(f"messages[{i}].content[{j}]", f"content parts of type {str(part.get('type'))!r} "
                                                            "are not supported: this assistant reads text only")


def message_texts(body: ChatRequest) -> list[tuple[str, str]]:
    """(role, text) of each message, checked to be UTF-8."""
    out = []
    for i, message in enumerate(body.messages):
        content = message.content
        if isinstance(content, list):
            texts = [utf8(str(p.get("text") or ""), f"messages[{i}].content[{j}].text") for j, p in enumerate(content)]
            text = " ".join(texts)
        else:
            text = utf8(content or "", f"messages[{i}].content")
        out.append((message.role, text))
    return out


def answer_options(body: ChatRequest, instructions: str) -> AnswerOptions:
    for n, stop in enumerate(body.stop or ()):
        utf8(stop, f"stop[{n}]")
    return AnswerOptions(max_tokens=body.max_completion_tokens or body.max_tokens, stop=tuple(body.stop or ()),
                         temperature=body.temperature, top_p=body.top_p, seed=body.seed,
                         instructions=utf8(instructions, "messages"))
