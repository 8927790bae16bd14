"""Deterministic stand-ins for the models, for tests about control flow."""
from __future__ import annotations

from models.config import Settings
from models.interrupt import Interruptible
from models.judges.judge import Verdict
from models.reader.llama_reader import Generation, ReaderStats, Scored

from assistant.context import RunContext
from assistant.events.core import Passage


class FakeReader(Interruptible):
    """Answers with a function of the last user message; counts calls like the real reader."""

    name = "fake-reader"

    def __init__(self, answer=lambda prompt: "fake answer", prob: float = 0.5, option_logprob=None):
        self.answer = answer
        self.prob = prob  # a number, or a function of (prompt, answer text)
        self.option_logprob = option_logprob  # optional function of (prompt, option) for score_options
        self.stats = ReaderStats()
        self.prompts: list[list[dict]] = []

    def stream(self, messages, max_tokens=128, **kwargs):
        self.stats.calls += 1
        self.prompts.append(list(messages))
        text = self.answer(messages[-1]["content"])
        for word in text.split(" "):
            self.check_stop()
            yield word + " "
        import math

        prob = self.prob(messages[-1]["content"], text) if callable(self.prob) else self.prob
        yield Generation(token_logprobs=[math.log(prob)] * max(1, len(text.split())), text=text)

    def generate(self, messages, **kwargs):
        *_, last = self.stream(messages, **kwargs)
        return last

    def sample(self, messages, n, **kwargs):
        return [self.generate(messages, **kwargs) for _ in range(n)]

    def score_options(self, messages, options):
        self.stats.calls += 1
        if self.option_logprob:
            return [Scored([self.option_logprob(messages[-1]["content"], o)]) for o in options]
        return [Scored([-1.0]) for _ in options]


class FakeJudge:
    """Scripted verdicts: `knows` and `relevant` are predicates, `decompose` a dict."""

    name = "fake-judge"
    knows_threshold = relevance_threshold = 0.5  # its scores are 0.9/0.1 and 0.8/0.2

    def __init__(self, knows=lambda q: False, relevant=lambda q, text: False, decompose=None):
        self._knows = knows
        self._relevant = relevant
        self._decompose = decompose or {}
        self.calls: list[tuple[str, str]] = []

    def knows(self, question):
        self.calls.append(("knows", question))
        yes = self._knows(question)
        return Verdict(yes, 0.9 if yes else 0.1)

    def relevant(self, question, passages):
        self.calls.append(("relevant", question))
        return [Verdict(self._relevant(question, t), 0.8 if self._relevant(question, t) else 0.2)
                for t in passages]

    def decompose(self, question):
        self.calls.append(("decompose", question))
        return list(self._decompose.get(question, []))


class FakeRetriever:
    """Returns the first k passages for any query, and remembers the queries."""

    embedder = None  # a test may give it one, for similarity()

    def __init__(self, texts: dict[str, str]):
        self.passages = [Passage(id=pid, text=text, title=pid, path=f"{pid}.md") for pid, text in texts.items()]
        self.queries: list[str] = []

    def search(self, query, k):
        self.queries.append(query)
        return self.passages[:k]

    def similarity(self, query, texts):
        from assistant.retrieval.retriever import cosine_to_query

        return cosine_to_query(self.embedder, query, texts) if self.embedder is not None else None


def make_context(reader=None, judge=None, retriever=None, **settings) -> RunContext:
    return RunContext(settings=Settings().with_overrides(**settings), reader=reader or FakeReader(),
                      judge=judge or FakeJudge(), retriever=retriever)
