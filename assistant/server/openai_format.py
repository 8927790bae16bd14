"""The OpenAI chat-completions shapes: a request's messages as a question and its history, and
an answer as a completion, or as the chunks of a streamed one (SSE lines)."""
from __future__ import annotations

import json
import time
import uuid

from assistant.events.core import Answer, Passage, Token
from models.errors import BadRequest
from assistant.conversation.threads import Turn

SOURCES_HEADING = "\n\nSources:"


def error_body(message: str, code: str, kind: str = "invalid_request_error") -> dict:
    return {"error": {"message": message, "type": kind, "code": code, "param": None}}


def text_of(content) -> str:
    """A message's text: a string, or OpenAI's list of parts (only the text parts count)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def question_and_history(messages: list) -> tuple[str, list[Turn]]:
    """The last user message, and the user/assistant pairs before it as turns (system messages
    are ignored: the strategy writes its own prompts)."""
    said = [(m.role, text_of(m.content).strip()) for m in messages if m.role in ("user", "assistant")]
    if not said or said[-1][0] != "user" or not said[-1][1]:
        raise BadRequest(400, "the last message must be a user message with the question in it")
    history, asked = [], None
    for role, text in said[:-1]:
        if role == "user":
            asked = text
        elif asked is not None:
            history.append(Turn(question=asked, answer=text.split(SOURCES_HEADING)[0]))
            asked = None
    return said[-1][1], history


def citation_rows(citations: list[Passage]) -> list[dict]:
    """The structured citations: [n] in the text is row n."""
    return [{"n": n, "label": p.citation_label(), "title": p.title, "path": p.path, "page": p.page,
             "section": p.section, "source": p.source, "passage_id": p.id, "text": p.text}
            for n, p in enumerate(citations, 1)]


def sources_block(answer: Answer) -> str:
    if not answer.citations:
        return ""
    return SOURCES_HEADING + "".join(f"\n[{n}] {p.citation_label()}" for n, p in enumerate(answer.citations, 1))


def answer_content(answer: Answer) -> str:
    return (answer.marked_text or answer.text or "(no answer)") + sources_block(answer)


def completion(model: str, answer: Answer, standalone: str) -> dict:
    tokens = int(answer.counts.get("tokens", 0) or 0)
    return {"id": new_id(), "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer_content(answer)},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": tokens, "total_tokens": tokens},
            "citations": citation_rows(answer.citations), "standalone_question": standalone}


def new_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def sse(data) -> str:
    return f"data: {data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)}\n\n"


class ChunkStream:
    """A streamed completion: the top-level answer's tokens as they are generated, then what
    the final answer adds (its [n] markers, or the revision a check made) and its sources."""

    def __init__(self, model: str):
        self.id, self.model, self.created = new_id(), model, int(time.time())
        self.step: int | None = None  # the answer generation being streamed (the first at depth 0)
        self.streamed = ""

    def chunk(self, delta: dict, finish: str | None = None, **extra) -> str:
        return sse({"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                    "model": self.model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                    **extra})

    def start(self) -> str:
        return self.chunk({"role": "assistant", "content": ""})

    def token(self, event: Token) -> str | None:
        if event.depth != 0 or (self.step is not None and event.step != self.step):
            return None  # a sub-answer, or a later check's generation: said by the final chunk
        self.step = event.step
        self.streamed += event.text
        return self.chunk({"content": event.text})

    def finish(self, answer: Answer, standalone: str) -> str:
        from assistant.answering.generate import clean_answer

        final = answer.marked_text or answer.text or "(no answer)"
        said = clean_answer(self.streamed)
        if not self.streamed:
            rest = final
        elif said and final.startswith(said) and self.streamed.rstrip().endswith(said):
            rest = final[len(said):]  # the markers after the streamed sentence
        elif said == answer.text:
            rest = ""
        else:
            rest = f"\n\nRevised answer: {final}"
        out = self.chunk({"content": rest}) if rest else ""
        out += self.chunk({"content": sources_block(answer)}) if answer.citations else ""
        return out + self.chunk({}, "stop", citations=citation_rows(answer.citations),
                                standalone_question=standalone) + sse("[DONE]")
