"""A fake reader for `assistant serve`'s conformance tests: it counts tokens (words) like the real
one, honours max_tokens and stop sequences, records what each call was given, and can be slow
or fail part-way."""
from __future__ import annotations

import threading
import time

from models.reader.llama_reader import Generation

from helpers.fakes import FakeReader

DOCS = {"clinic": "The Harbor Clinic was founded by Dr. Ada Lane in 1990.",
        "river": "The Lune river runs past the clinic."}


class CountingReader(FakeReader):
    """Answers from its passages, one word per token; `calls` keeps each call's keyword options."""

    def __init__(self, delay: float = 0.0, words: int = 0, fail_after: int | None = None):
        super().__init__(answer=self.reply)
        self.delay, self.words, self.fail_after = delay, words, fail_after
        self.calls: list[dict] = []
        self.stopped = threading.Event()
        self.generated = 0

    def reply(self, prompt: str) -> str:
        if "Rewritten question:" in prompt:
            return "Who founded the Harbor Clinic?"
        if self.words:
            return " ".join(f"w{i}" for i in range(self.words))
        return "Dr. Ada Lane founded it." if "Who founded" in prompt else "It is the Harbor Clinic."

    def stream(self, messages, max_tokens=128, **kwargs):
        self.calls.append(dict(kwargs, max_tokens=max_tokens, messages=list(messages)))
        self.prompts.append(list(messages))
        self.stats.calls += 1
        self.stats.prompt_tokens += sum(len(str(m["content"]).split()) for m in messages)
        self.stats.evaluated_tokens += sum(len(str(m["content"]).split()) for m in messages)
        words = self.reply(messages[-1]["content"]).split(" ")
        said, finish, finished = [], "stop", False
        try:
            for n, word in enumerate(words):
                if n >= max_tokens:
                    finish = "length"
                    break
                if any(stop and stop in word for stop in kwargs.get("stop", ())):
                    break
                self.check_stop()
                if self.fail_after is not None and n >= self.fail_after:
                    raise RuntimeError("the reader broke")
                time.sleep(self.delay)
                said.append(word)
                self.generated += 1
                self.stats.completion_tokens += 1
                yield word + " "
            finished = True
        finally:
            if not finished:
                self.stopped.set()
        yield Generation(token_logprobs=[-0.1] * max(1, len(said)), text=" ".join(said), finish=finish)

    def answer_calls(self) -> list[dict]:
        """The calls that wrote an answer (not a follow-up's rewrite)."""
        return [c for c in self.calls if "Rewritten question:" not in c["messages"][-1]["content"]]
