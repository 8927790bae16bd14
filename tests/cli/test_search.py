"""`assistant search QUERY` (issue 52): the hybrid search alone, no reader loaded: passages with
their file (relative to its folder), page or section and a snippet; --json, -k, --collection; bad
input as one line; the same search on the server's /v1/search; and, with the bundled embedder on
examples/docs, a search that imports neither torch nor llama.cpp."""
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from helpers.cli_run import cli, one_error_line  # noqa: F401 (a fixture)
from helpers.fakes import FakeReader, make_context
from helpers.hash_embedder import HashEmbedder, write
from helpers.live_server import live_server

from assistant.services.search import search, snippet
from models.config import Settings

ROOT = Path(__file__).resolve().parents[2]
NOTES = {"handbook.md": "# Staff Handbook\n\n## Leave\n\nNew employees get twenty-five days of paid leave each year. Leave is booked "
                        "in the staff portal.\n\n## Offices\n\nThe Lisbon office is open on Saturdays.\n",
         "projects/heron.md": "# Project Heron\n\nProject Heron builds a solar-powered weather buoy.\n",
         "recipes.txt": "Pumpkin soup: roast the pumpkin, then blend it with stock.\n"}


def docs(folder: Path) -> Path:
    for name, text in NOTES.items():
        write(folder, name, text)
    return folder


@pytest.fixture
def indexed(tmp_path):
    from index_builder.folder import index_folder
    from index_builder.store import IndexStore

    settings = Settings(data_dir=tmp_path / "data")
    store = IndexStore.open_or_create(settings.index_path, HashEmbedder.model_id, HashEmbedder.dim)
    index_folder(store, HashEmbedder(), docs(tmp_path / "notes"))
    return settings


def test_the_service_finds_passages_with_file_section_and_snippet(indexed, tmp_path):
    hits = search(indexed, "paid leave days", k=2, embedder_factory=lambda s: HashEmbedder())
    top = hits[0]
    assert top.file == "handbook.md" and top.section == "Leave" and top.rank == 1
    assert "twenty-five days" in top.snippet and top.where == "handbook.md § Leave"
    assert top.source == str((tmp_path / "notes").resolve()) and top.folder == "notes"
    assert top.as_dict(local=False)["source"] == "notes" and len(hits) == 2


def test_a_passage_in_a_subfolder_is_named_relative_to_its_folder(indexed):
    hits = search(indexed, "solar weather buoy", k=1, embedder_factory=lambda s: HashEmbedder())
    assert hits[0].file == "projects/heron.md"


def test_bad_searches_are_one_line(indexed, tmp_path):
    from models.errors import BadInputError, NoIndex

    with pytest.raises(BadInputError, match="empty"):
        search(indexed, "   ", embedder_factory=lambda s: HashEmbedder())
    with pytest.raises(BadInputError, match="out of range"):
        search(indexed, "leave", k=0, embedder_factory=lambda s: HashEmbedder())
    with pytest.raises(BadInputError, match="no collection 'work'"):
        search(indexed, "leave", collection="work", embedder_factory=lambda s: HashEmbedder())
    with pytest.raises(NoIndex):
        search(Settings(data_dir=tmp_path / "none"), "leave", embedder_factory=lambda s: HashEmbedder())


def test_a_snippet_is_cut_around_the_words_searched_for():
    text = "Intro words. " * 40 + "The heron nests by the reed marsh in spring. " + "Outro words. " * 40
    cut = snippet(text, "where does the heron nest", width=120)
    assert "heron nests" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 122
    assert snippet("Short text.", "heron") == "Short text."


def test_cli_search_prints_passages_and_json(cli, tmp_path):
    folder = docs(tmp_path / "notes")
    assert cli("index", "add", str(folder))[0] == 0
    code, out, err = cli("search", "Lisbon office Saturdays", "-k", "2")
    assert code == 0, err
    assert out.startswith("[1] handbook.md § Offices  (notes)") and "Saturdays" in out
    assert len(cli.readers) == 0, "search must not load the reader"
    code, out, _ = cli("search", "pumpkin soup", "--json", "-k", "1")
    row = json.loads(out.strip())
    assert code == 0 and row["file"] == "recipes.txt" and "Pumpkin soup" in row["snippet"]
    assert len(out.strip().splitlines()) == 1


def test_cli_search_within_a_collection(cli, tmp_path):
    assert cli("index", "add", str(docs(tmp_path / "notes")), "-c", "work")[0] == 0
    other = write(tmp_path / "diary", "day.txt", "Pumpkin soup again today, with bread.\n").parent
    assert cli("index", "add", str(other), "-c", "personal")[0] == 0
    code, out, _ = cli("search", "pumpkin soup", "--collection", "personal", "--json")
    assert code == 0 and {json.loads(line)["file"] for line in out.strip().splitlines()} == {"day.txt"}
    assert "no collection 'nope'" in one_error_line(cli("search", "soup", "-c", "nope"))


def test_cli_search_bad_input_is_one_line(cli, tmp_path):
    assert "no index" in one_error_line(cli("search", "leave"))
    assert cli("search", "leave", "-k", "0")[0] == 2  # a usage error, said by the option's range
    assert cli("index", "add", str(docs(tmp_path / "notes")))[0] == 0
    assert "empty" in one_error_line(cli("search", "  "))


def test_the_server_searches_without_the_reader(indexed, tmp_path):
    reader = FakeReader()
    found = lambda query, k, collection: search(indexed, query, k, collection,  # noqa: E731
                                                embedder_factory=lambda s: HashEmbedder())
    with live_server(lambda settings, strategy: make_context(reader=reader), tmp_path, searcher=found) as base:
        reply = httpx.post(base + "/v1/search", json={"query": "paid leave", "k": 1})
        bad = httpx.post(base + "/v1/search", json={"query": "leave", "k": 99})
    assert reply.status_code == 200 and reply.json()["data"][0]["file"] == "handbook.md"
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "k"
    assert reader.stats.calls == 0


@pytest.mark.real_models
def test_search_on_examples_docs_imports_neither_torch_nor_llama_cpp(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
    env.update(ASSISTANT_DATA_DIR=str(tmp_path / "data"), ASSISTANT_CONFIG=os.devnull, PYTHONPATH=str(ROOT),
               HF_HUB_OFFLINE="1")
    built = subprocess.run([sys.executable, "-m", "assistant", "index", "add", str(ROOT / "examples" / "docs")],
                           env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    probe = ("import json, sys\nfrom assistant.cli.main import run\ntry:\n    run()\nfinally:\n"
             "    print(json.dumps(sorted(m for m in ('torch', 'llama_cpp', 'sentence_transformers', 'transformers') "
             "if m in sys.modules)), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe, "search", "How many days of paid holiday?", "--json", "-k", "3"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.strip().splitlines()]
    assert len(rows) == 3 and all(row["file"] and row["snippet"] for row in rows)
    assert rows[0]["where"] == "handbook.md § Holidays" and "30 days" in rows[0]["text"]
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []


def test_cli_search_goes_through_a_running_server_unless_local(cli, tmp_path):
    from helpers.cli_run import TinyEmbedder

    assert cli("index", "add", str(docs(tmp_path / "notes")))[0] == 0
    settings = Settings(data_dir=tmp_path / "data")
    asked = []

    def found(query, k, collection):
        asked.append(query)
        return search(settings, query, k, collection, embedder_factory=lambda s: TinyEmbedder())

    with live_server(lambda s, strategy: make_context(reader=FakeReader()), tmp_path / "server", searcher=found) as base:
        (settings.data_dir / "server.json").write_text(json.dumps({"url": base, "pid": 0,
                                                                   "index": str(settings.index_path)}))
        code, out, _ = cli("search", "Lisbon office Saturdays", "--json", "-k", "1")
        assert code == 0 and asked == ["Lisbon office Saturdays"]
        assert json.loads(out)["where"] == "handbook.md § Offices"
        code, out, _ = cli("search", "Lisbon office Saturdays", "--local", "-k", "1")
        assert code == 0 and len(asked) == 1 and out.startswith("[1] handbook.md § Offices")


def test_search_through_a_running_server_imports_no_index_library(tmp_path, indexed):
    from test_cold_imports import imported_by

    found = lambda query, k, collection: search(indexed, query, k, collection,  # noqa: E731
                                                embedder_factory=lambda s: HashEmbedder())
    with live_server(lambda s, strategy: make_context(reader=FakeReader()), tmp_path / "server", searcher=found) as base:
        (indexed.data_dir / "server.json").write_text(json.dumps({"url": base, "pid": 0,
                                                                  "index": str(indexed.index_path)}))
        done, heavy = imported_by(tmp_path, indexed.data_dir, "search", "paid leave", "-k", "1")
    assert done.returncode == 0 and "handbook.md § Leave" in done.stdout, done.stderr
    assert heavy == [], f"`assistant search` through the server imported {heavy}"
