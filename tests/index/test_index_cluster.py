"""Index builds on a local Ray cluster (2 workers) give the single-machine path's passages (same
ids, titles and texts), and survive a killed driver or a killed worker: a re-run skips committed
shards, and no passage is lost or stored twice. One local cluster serves the whole module (Ray
starts slowly on 2 cores); the embedder is the tests' hash embedder."""
from __future__ import annotations

import bz2
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from index_builder.cluster.build import build_on_cluster
from index_builder.cluster.shards import passage_parts, wikipedia_parts
from index_builder.passages import index_passages
from index_builder.store import META_FILE, IndexStore
from index_builder.wikipedia import index_wikipedia
from models.errors import AssistantError
from helpers.cli_run import cli, one_error_line  # noqa: F401 (a fixture)
from helpers.hash_embedder import HashEmbedder

ray = pytest.importorskip("ray")

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
ENWIKI = DATA / "mediawiki_xml" / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
PIECE = 256 << 10  # small shards, so that a kill lands between commits
needs_enwiki = pytest.mark.skipif(not ENWIKI.is_file(), reason="shared enwiki dump not present")


@pytest.fixture(scope="module")
def cluster():
    from index_builder.cluster.ray_runtime import connect

    # One logical GPU (no real one needed): builds that use it take the GPU route (CPU tasks parse,
    # a GPU worker embeds); the hash embedder has no model to move to CUDA.
    connected = connect("local", cpus=2, gpus=1)
    yield connected.get_runtime_context().gcs_address
    connected.shutdown()


def new_store(path: Path) -> IndexStore:
    return IndexStore.open_or_create(path, HashEmbedder.model_id, HashEmbedder.dim)


def rows(path: Path) -> list[tuple]:
    table = IndexStore.open(path).passages.to_arrow().select(["id", "title", "text"])
    return sorted(tuple(r.values()) for r in table.to_pylist())


def on_cluster(path: Path, parts, workers: int | None = 2, use_gpus: bool = False, **kwargs):
    with new_store(path) as store:
        return build_on_cluster(store, parts, HashEmbedder, "local", workers=workers, use_gpus=use_gpus, **kwargs)


@pytest.fixture(scope="module")
def enwiki_single(tmp_path_factory):
    """The shortened enwiki dump built on one machine: the reference."""
    path = tmp_path_factory.mktemp("single") / "index"
    with new_store(path) as store:
        index_wikipedia(store, HashEmbedder(), ENWIKI)
    return rows(path)


@needs_enwiki
def test_enwiki_on_two_workers_gives_the_single_machine_rows(cluster, enwiki_single, tmp_path):
    summary = on_cluster(tmp_path / "index", wikipedia_parts(ENWIKI, xml_bytes=1 << 20))
    assert summary.workers == 2 and summary.shards >= 5
    assert rows(tmp_path / "index") == enwiki_single and len(enwiki_single) > 4000
    status = IndexStore.open(tmp_path / "index").status()
    (info,) = status.sources
    assert not info.incomplete and info.passages == len(enwiki_single)
    assert summary.skipped.get("redirects", 0) >= 1
    again = on_cluster(tmp_path / "index", wikipedia_parts(ENWIKI, xml_bytes=1 << 20))
    assert again.shards == 0 and again.passages == 0 and "nothing to do" in again.line()


@needs_enwiki
def test_with_a_gpu_cpu_tasks_parse_and_the_gpu_worker_embeds_the_same_rows(cluster, enwiki_single, tmp_path):
    summary = on_cluster(tmp_path / "index", wikipedia_parts(ENWIKI, xml_bytes=1 << 20), workers=None, use_gpus=True)
    assert (summary.workers, summary.gpus) == (1, 1) and "1 worker on GPUs" in summary.line()
    assert rows(tmp_path / "index") == enwiki_single


KILLED_DRIVER = textwrap.dedent("""
    import sys
    sys.path[:0] = {paths!r}
    from pathlib import Path
    from index_builder.cluster.build import build_on_cluster
    from index_builder.cluster.shards import wikipedia_parts
    from index_builder.store import IndexStore
    from helpers.hash_embedder import HashEmbedder
    store = IndexStore.open_or_create(Path({index!r}), HashEmbedder.model_id, HashEmbedder.dim)
    build_on_cluster(store, wikipedia_parts(Path({dump!r}), xml_bytes={piece}), HashEmbedder, {address!r}, workers=2)
""")


def done_shards(index: Path) -> int:
    try:
        meta = json.loads((index / META_FILE).read_text())
    except (OSError, ValueError):
        return 0
    info = meta.get("sources", {}).get(str(ENWIKI.resolve()), {})
    return len(info.get("cluster", {}).get("done", [])) if info.get("incomplete") else -1


@needs_enwiki
def test_a_killed_driver_resumes_without_losing_or_duplicating(cluster, enwiki_single, tmp_path):
    index = tmp_path / "index"
    script = KILLED_DRIVER.format(paths=sys.path, index=str(index), dump=str(ENWIKI), piece=PIECE, address=cluster)
    driver = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while done_shards(index) < 3 and driver.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    done = done_shards(index)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    assert done >= 3, f"the driver ended before it could be killed mid-build: {driver.stderr.read()[-2000:]}"
    summary = on_cluster(index, wikipedia_parts(ENWIKI, xml_bytes=PIECE))
    assert summary.already >= done and summary.shards >= 1
    found = rows(index)
    assert len({r[0] for r in found}) == len(found)  # no passage twice
    assert found == enwiki_single


def shard_worker_pids() -> list[int]:
    """The pids of this test's Ray shard workers (Ray names its actor processes ray::CLASS)."""
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if "ray::_ShardWorker" in line]


@needs_enwiki
def test_a_lost_worker_is_replaced_and_its_shard_built_again(cluster, enwiki_single, tmp_path):
    killed = []

    def kill_one_worker(progress):
        if not killed and progress.files_done >= 2:
            pids = shard_worker_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

    summary = on_cluster(tmp_path / "index", wikipedia_parts(ENWIKI, xml_bytes=PIECE), on_progress=kill_one_worker)
    assert killed and summary.shards >= 10
    assert rows(tmp_path / "index") == enwiki_single


def multistream(pages: list[str], head: str, tail: str, folder: Path, per_stream: int) -> Path:
    """A multistream dump as Wikimedia makes them: the head in a stream of its own, then
    `per_stream` pages per bz2 stream, and an index of offset:id:title lines."""
    dump = folder / "testwiki-pages-articles-multistream.xml.bz2"
    lines, offset = [], 0
    with dump.open("wb") as out:
        out.write(data := bz2.compress(head.encode()))
        offset += len(data)
        for start in range(0, len(pages), per_stream):
            group = pages[start:start + per_stream]
            body = "".join(group) + (tail if start + per_stream >= len(pages) else "")
            for number, page in enumerate(group):
                title = re.search(r"<title>(.*?)</title>", page).group(1)
                lines.append(f"{offset}:{start + number + 1}:{title}")
            out.write(data := bz2.compress(body.encode()))
            offset += len(data)
    (folder / "testwiki-pages-articles-multistream-index.txt").write_text("\n".join(lines) + "\n")
    return dump


@needs_enwiki
def test_multistream_numbered_files_and_passage_files_match_the_single_machine(cluster, tmp_path):
    xml = bz2.open(ENWIKI, "rt", encoding="utf-8").read()
    start, end = xml.index("<page>"), xml.rindex("</mediawiki>")
    pages = re.findall(r"<page>.*?</page>\s*", xml[start:end], flags=re.S)[:40]
    head, tail = xml[:start], xml[end:]
    dump = multistream(pages, head, tail, tmp_path, per_stream=4)
    numbered = tmp_path / "numbered"
    numbered.mkdir()
    for number, group in ((1, pages[:15]), (2, pages[15:])):
        (numbered / f"testwiki-pages-articles{number}.xml").write_text(head + "".join(group) + tail)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": str(i), "title": f"T{i // 3}", "text": f"passage {i} " * (5 + i % 7)} for i in range(40)]
        + [{"id": "7", "title": "again", "text": "a repeated id, skipped on both paths"}]))

    single = tmp_path / "single"
    with new_store(single) as store:
        index_wikipedia(store, HashEmbedder(), dump)
        for path in sorted(numbered.iterdir()):
            index_wikipedia(store, HashEmbedder(), path)
        index_passages(store, HashEmbedder(), corpus)
    parts = (wikipedia_parts(dump, streams_per_shard=3) + wikipedia_parts(numbered)
             + passage_parts(corpus, per_shard=10))
    assert [p.total for p in parts[:3]] == [4, 1, 1]
    summary = on_cluster(tmp_path / "cluster", parts)
    assert rows(tmp_path / "cluster") == rows(single)
    assert any("duplicate ids" in note for note in summary.notes)
    sources = IndexStore.open(tmp_path / "cluster").status().sources
    assert len(sources) == 4 and not any(s.incomplete for s in sources)


def test_bad_requests_are_one_line(tmp_path, monkeypatch):
    from index_builder.cluster import commands

    dump = tmp_path / "dump.xml"
    dump.write_text("<mediawiki><page><title>A</title><ns>0</ns><id>1</id></page></mediawiki>")
    with pytest.raises(AssistantError, match="--limit works on one machine"):
        commands.plan("wikipedia", dump, "local", limit=5)
    with pytest.raises(AssistantError, match="needs an address"):
        commands.plan("wikipedia", dump, " ")
    with pytest.raises(AssistantError, match="no pages-articles"):
        commands.plan("wikipedia", tmp_path, "local")
    with pytest.raises(AssistantError, match="not a Wikipedia XML dump"):
        commands.plan("wikipedia", _write(tmp_path / "x.pdf"), "local")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the cluster extra were not installed
    with pytest.raises(AssistantError, match=r'pip install -e "\.\[cluster\]"') as error:
        commands.plan("wikipedia", dump, "local")
    assert "\n" not in str(error.value)


def _write(path: Path) -> Path:
    path.write_bytes(b"%PDF-1.4")
    return path


def test_a_source_built_without_cluster_is_not_built_twice(cluster, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "1", "title": "A", "text": "alpha"}) + "\n")
    with new_store(tmp_path / "index") as store:
        index_passages(store, HashEmbedder(), corpus)
    with pytest.raises(AssistantError, match="already in the index .*assistant index remove"):
        on_cluster(tmp_path / "index", passage_parts(corpus))
    assert len(rows(tmp_path / "index")) == 1


def test_a_shard_committed_but_not_recorded_is_not_stored_twice(cluster, tmp_path):
    """A driver killed after a shard's commit and before its record: the re-run builds the shard
    again and replaces what the lost run committed."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": str(i), "title": f"T{i // 2}", "text": f"text {i}"}) + "\n"
                              for i in range(30)))
    index = tmp_path / "index"
    first = on_cluster(index, passage_parts(corpus, per_shard=6))
    assert first.shards == 5
    expected = rows(index)
    meta = json.loads((index / META_FILE).read_text())
    info = meta["sources"][str(corpus.resolve())]
    info["cluster"].update(done=[0, 1, 3, 4], committing=[2])  # as the killed driver left it
    info["incomplete"] = True
    (index / META_FILE).write_text(json.dumps(meta))
    again = on_cluster(index, passage_parts(corpus, per_shard=6))
    assert (again.shards, again.already) == (1, 4)
    assert rows(index) == expected and len(expected) == 30


def test_the_cli_builds_on_the_cluster_and_says_what_to_install_without_ray(cluster, cli, monkeypatch, tmp_path):
    from index_builder.cluster import commands
    from models import registry

    monkeypatch.setattr(registry, "get_embedder", lambda settings: HashEmbedder())
    monkeypatch.setattr(commands, "embedder_factory", lambda settings: HashEmbedder)
    dump = DATA / "mediawiki_xml" / "tinywiki-latest-pages-articles.xml"
    if not dump.is_file():
        pytest.skip("shared tinywiki dump not present")
    code, out, err = cli("index", "wikipedia", str(dump), "--cluster", "local", "--index", str(tmp_path / "i"))
    assert code == 0, err
    assert re.search(r"1 shards built on \d+ workers?( on GPUs)?, 0 already committed; 6 documents, \d+ passages",
                     out), out
    code, out, _ = cli("index", "status", "--index", str(tmp_path / "i"))
    assert "wikipedia" in out and "incomplete" not in out
    monkeypatch.setitem(sys.modules, "ray", None)
    line = one_error_line(cli("index", "passages", str(dump), "--cluster", "local", "--index", str(tmp_path / "i")))
    assert 'pip install -e ".[cluster]"' in line
