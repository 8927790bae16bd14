"""The OpenAI chat-completions shapes: a request's messages as a question and its history, and
an answer as a completion, or as the chunks of a streamed one (SSE lines)."""
from __future__ import annotations

import json
import time
import uuid

from assistant.events.core import Answer, Passage, Token
from assistant.grounding.label_text import sources_trailer, without_trailer
from assistant.services.search import source_label
from assistant.conversation.threads import Turn

from .api_errors import ApiError


def question_and_history(said: list[tuple[str, str]]) -> tuple[str, list[Turn], str]:
    """From (role, text) messages: the last user message, the user/assistant pairs before it as
    turns, and the system (and developer) messages as instructions for the answer."""
    instructions = "\n".join(text.strip() for role, text in said if role in ("system", "developer") and text.strip())
    said = [(role, text.strip()) for role, text in said if role in ("user", "assistant")]
    if not said or said[-1][0] != "user" or not said[-1][1]:
        raise ApiError(400, "the last message must be a user message with the question in it", param="messages")
    history, asked = [], None
    for role, text in said[:-1]:
        if role == "user":
            asked = text
        elif asked is not None:
            history.append(Turn(question=asked, answer=without_trailer(text)))
            asked = None
    return said[-1][1], history, instructions


def citation_rows(citations: list[Passage], local: bool = True) -> list[dict]:
    """The structured citations: [n] in the text is row n. `local` False (a client on another
    machine): the source is its folder's own name, not this machine's absolute path."""
    return [{"n": n, "label": p.citation_label(), "title": p.title, "path": p.path, "page": p.page,
             "section": p.section, "source": p.source if local else source_label(p.source),
             "passage_id": p.id, "text": p.text}
            for n, p in enumerate(citations, 1)]


def usage(answer: Answer) -> dict:
    """The reader's tokens over every call of the question (its rewrite, judges and checks too):
    what the question cost. cached_tokens: prompt tokens the prefix cache spared."""
    counts = answer.counts
    prompt, completion = int(counts.get("prompt_tokens", 0) or 0), int(counts.get("completion_tokens", 0) or 0)
    cached = max(0, prompt - int(counts.get("evaluated_tokens", prompt) or 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached}}


def finish_reason(answer: Answer) -> str:
    return "length" if answer.finish == "length" else "stop"


def answer_content(answer: Answer) -> str:
    return (answer.marked_text or answer.text or "(no answer)") + sources_trailer(answer)


def completion(model: str, answer: Answer, standalone: str, local: bool = True) -> dict:
    return {"id": new_id(), "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer_content(answer)},
                         "finish_reason": finish_reason(answer), "logprobs": None}],
            "usage": usage(answer), "citations": citation_rows(answer.citations, local),
            "grounding": answer.grounding, "standalone_question": standalone}


def new_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def sse(data) -> str:
    return f"data: {data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)}\n\n"


class ChunkStream:
    """A streamed completion: the top-level answer's tokens as they are generated, then what
    the final answer adds (its [n] markers, or the revision a check made) and its sources."""

    def __init__(self, model: str, include_usage: bool = False, local: bool = True):
        self.id, self.model, self.created = new_id(), model, int(time.time())
        self.include_usage, self.local = include_usage, local
        self.step: int | None = None  # the answer generation being streamed (the first at depth 0)
        self.streamed = ""

    def chunk(self, delta: dict, finish: str | None = None, **extra) -> str:
        usage_field = {"usage": None} if self.include_usage else {}
        return sse({"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                    "model": self.model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                    **usage_field, **extra})

    def usage_chunk(self, answer: Answer) -> str:
        """stream_options.include_usage: the last chunk before [DONE], no choices, the usage."""
        return sse({"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                    "model": self.model, "choices": [], "usage": usage(answer)})

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
        whole = "\n" in answer.text  # an answer of several lines (a list the caller asked for)
        said = clean_answer(self.streamed, whole=whole)
        if not self.streamed:
            rest = final
        elif said and final.startswith(said) and self.streamed.rstrip().endswith(said):
            rest = final[len(said):]  # the markers after the streamed sentence
        elif said == answer.text:
            rest = ""
        else:
            rest = f"\n\nRevised answer: {final}"
        out = self.chunk({"content": rest}) if rest else ""
        trailer = sources_trailer(answer)
        out += self.chunk({"content": trailer}) if trailer else ""
        out += self.chunk({}, finish_reason(answer), citations=citation_rows(answer.citations, self.local),
                          grounding=answer.grounding, standalone_question=standalone)
        return out + (self.usage_chunk(answer) if self.include_usage else "") + sse("[DONE]")
