"""Strategies by name. A spec may carry options: "ra-isf:relevance=false,depth=2"."""
from __future__ import annotations

from models.errors import OptionError

from .base import Strategy
from .ra_isf import RaIsf
from .simple import Direct, Rag
from .default import DefaultPipeline
from .llmqa import Llmqa
from .refeed import ReFeed
from .rq_rag import RqRag

STRATEGIES: dict[str, type[Strategy]] = {}
DEFAULT_STRATEGY = "default"  # RA-ISF, then ReFeed refinement of its answer


def register(cls: type[Strategy]) -> type[Strategy]:
    STRATEGIES[cls.name] = cls
    return cls


for _cls in (Direct, Rag, RaIsf, ReFeed, RqRag, Llmqa, DefaultPipeline):
    register(_cls)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    name, _, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = item.partition("=")
        key, value = key.strip().replace("-", "_"), value.strip() if eq else "true"
        if options.get(key, value) != value:  # "rerank=true,rerank=false": which one was meant?
            raise OptionError(f"option {key} is given twice, as {options[key]} and as {value}; give it once")
        options[key] = value
    return name.strip(), options


def make_strategy(spec: str | None) -> Strategy:
    """The strategy a spec names, its options checked (None: the default strategy); OptionError
    for an empty spec, an unknown name or option, or a value the option does not take."""
    name, options = parse_spec(DEFAULT_STRATEGY if spec is None else spec)
    if name not in STRATEGIES:
        known = ", ".join(sorted(STRATEGIES))
        raise OptionError(f"unknown strategy '{name}' (choose from: {known})" if name
                          else f"no strategy named (choose from: {known})")
    return STRATEGIES[name](**options)
