"""The import graph of the project's packages, read with ast (nothing is imported), and the two
rules it must keep: imports point down the layers, and no modules import each other in a circle.

Layers, top to bottom: tests (tests/) -> lab (lab/, benchmarks/: tooling that measures the
product, never imported by it) -> ui (assistant/cli/, assistant/server/, assistant/mcp_server/,
assistant/presentation/ (how steps are worded for people), `python -m assistant`, tui/) -> research
(research/: evaluation and training the judges, which the answer path never loads) -> core (the
rest of assistant/) -> indexing (index_builder/) -> models (models/). Imports inside functions
count too: a lazy import is still a dependency. scripts/ (install.sh) is not walked.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGES = ("assistant", "tui", "research", "index_builder", "models", "lab", "benchmarks", "tests")
# Folders whose files run as scripts or test modules: their folder (and tests/, which conftest
# puts on sys.path) is on sys.path, so `from bench_support import x` or `from fakes import x`
# names a file there. A bare name that resolves to tests/ from elsewhere is an import of tests.
SCRIPT_FOLDERS = ("lab", "benchmarks", "tests")
LAYERS = {"tests": 6, "lab": 5, "ui": 4, "research": 3, "core": 2, "indexing": 1, "models": 0}
UI_PACKAGES = ("assistant.cli", "assistant.server", "assistant.mcp_server", "assistant.presentation")


def layer_of(module: str) -> str:
    top = module.split(".")[0]
    if top == "tests":
        return "tests"
    if top in ("lab", "benchmarks"):
        return "lab"
    if module in (*UI_PACKAGES, "assistant.__main__") or module.startswith(
            (*(package + "." for package in UI_PACKAGES), "tui")):
        return "ui"
    return {"assistant": "core", "research": "research", "index_builder": "indexing", "models": "models"}[top]


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the layered packages under root."""
    found = {}
    for package in PACKAGES:
        if not (root / package).is_dir():
            continue
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported(module: str, is_package: bool, node: ast.AST) -> list[str]:
    """The dotted names an import statement names (for `from X import Y`: X.Y and X)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def _resolved(module: str, is_package: bool, name: str, files: dict[str, Path]) -> str:
    """The project module an imported name means ("" if none): its longest prefix that is a
    module, as written, then (from a script folder) beside the importer, then in tests/."""
    folder = module if is_package else module.rpartition(".")[0]
    bases = ["", *([folder] if module.split(".")[0] in SCRIPT_FOLDERS else []), "tests"]
    parts = name.split(".")
    for base in bases:
        for n in range(len(parts), 0, -1):
            candidate = ".".join([base, *parts[:n]] if base else parts[:n])
            if candidate in files:
                return candidate
    return ""


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the project modules it imports (a name that is not a module counts as its
    module: `from models.errors import ConfigError` is an import of models.errors)."""
    files = module_files(root)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for name in _imported(module, is_package, node):
                name = _resolved(module, is_package, name, files)
                if name and name != module:
                    targets.add(name)
        graph[module] = targets
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """"a -> b" for every import of a module in a higher layer."""
    return sorted(f"{module} ({layer_of(module)}) -> {target} ({layer_of(target)})"
                  for module, targets in graph.items() for target in targets
                  if LAYERS[layer_of(target)] > LAYERS[layer_of(module)])


def _is_own_package(module: str, target: str) -> bool:
    """A package importing its own submodules (strategies/__init__ registers them) and a
    submodule reaching its package are one unit, not a circle between modules."""
    return target.startswith(module + ".") or module.startswith(target + ".")


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or round a longer loop
    (strongly connected components of more than one module; Tarjan's algorithm)."""
    edges = {m: {t for t in ts if not _is_own_package(m, t)} for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(circles)


# What only the services may use (assistant/service.py for questions and the index,
# research/judge_service.py for training judges): a front end that imported one of these would
# be opening the index, taking its lock, picking an indexer, loading a question's models or
# training a judge itself, a second implementation beside the service's. All of index_builder
# is behind the service (it re-exports the few names a front end shows: safe_name, the
# passage-file suffixes, the progress and stop-check types).
SERVICE_ONLY = ("index_builder", "research.judge_training", "assistant.runner", "assistant.retrieval.retriever")


def _behind_the_service(target: str) -> bool:
    return any(target == hidden or target.startswith(hidden + ".") for hidden in SERVICE_ONLY)


def service_bypasses(graph: dict[str, set[str]]) -> list[str]:
    """"ui module -> module" for every front-end import of what the services wrap."""
    return sorted(f"{module} -> {target}" for module, targets in graph.items() if layer_of(module) == "ui"
                  for target in targets if _behind_the_service(target))


# Inside the core, imports point down too: the services (the API under the front ends) on top,
# then the runner, the strategies, and below them the steps every strategy shares (answer
# generation, the missing hop, reranking, prompts, events). A step that imported a strategy, or
# a strategy that imported the runner, would tie the pipeline to what is built on it.
# (Evaluation and judge training sit above the whole core, in research/.)
CORE_LEVELS = (("assistant.service", "assistant.services", "assistant.conversation.chat"), ("assistant.runner",),
               ("assistant.strategies", "assistant.profiles"))


def core_level(module: str) -> int:
    """3 for the service ... 1 for the strategies and their profiles, 0 for the shared steps."""
    for rank, prefixes in zip(range(len(CORE_LEVELS), 0, -1), CORE_LEVELS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return 0


def core_upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """"a -> b" for every core module importing a core module above its own level."""
    return sorted(f"{module} -> {target}" for module, targets in graph.items() if layer_of(module) == "core"
                  for target in targets if layer_of(target) == "core" and core_level(target) > core_level(module))


# Each front end's own library, known there alone: a second place importing it would be a second
# front end hidden in another one (or the core tied to one of them).
LIBRARY_OWNERS = {"typer": "assistant.cli", "textual": "tui", "fastapi": "assistant.server",
                  "starlette": "assistant.server", "uvicorn": "assistant.server", "h11": "assistant.server",
                  "mcp": "assistant.mcp_server"}
PRODUCT = ("assistant", "tui", "research", "index_builder", "models")


def foreign_library_imports(root: Path, owners: dict[str, str] = LIBRARY_OWNERS) -> list[str]:
    """"module -> library" for every product module importing a front end's library outside
    that front end's package."""
    found = set()
    for module, path in module_files(root).items():
        if module.split(".")[0] not in PRODUCT:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else []
            for name in names:
                owner = owners.get(name.split(".")[0])
                if owner and module != owner and not module.startswith(owner + "."):
                    found.add(f"{module} -> {name.split('.')[0]}")
    return sorted(found)
