"""`assistant models pull|use|add|list` through the real CLI, against a stand-in hub on 127.0.0.1
(tests/helpers/fake_hub.py, pointed to by HF_ENDPOINT): a pull completes and the model becomes the reader;
a download cut or interrupted halfway resumes with a Range request; a file whose hash differs from
the hub's record is deleted and refused; no network or HF_HUB_OFFLINE=1 is one line within
seconds; `use` refuses files that are not GGUF chat models."""
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import fake_hub
from helpers.gguf_tiny import chat_reader_header

REPO = "tester/Tiny-GGUF"
FILE = "tiny-chat-q4.gguf"


def assistant(*args, env, timeout=120):
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def one_error_line(result) -> str:
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def gguf_bytes(tmp_path, size=6 * 2**20) -> bytes:
    """A GGUF chat header followed by `size` bytes of noise: big enough to cut in the middle."""
    header = chat_reader_header(tmp_path / "header.gguf").read_bytes()
    return header + os.urandom(size)


@pytest.fixture
def hub():
    state = fake_hub.FakeHub()
    server = fake_hub.start(state)
    yield state
    state.release.set()
    server.shutdown()


@pytest.fixture
def env(tmp_path, hub):
    (tmp_path / "config.toml").touch()
    # run() notes the user's HF_HUB_OFFLINE in this variable; an in-process CLI test may have left it set
    base = {k: v for k, v in os.environ.items() if k != "ASSISTANT_USER_HF_HUB_OFFLINE"}
    return dict(base, ASSISTANT_DATA_DIR=str(tmp_path / "data"), ASSISTANT_CONFIG=str(tmp_path / "config.toml"),
                HF_ENDPOINT=hub.url, HF_HUB_OFFLINE="0", TRANSFORMERS_OFFLINE="0", HF_HUB_DISABLE_TELEMETRY="1",
                HF_TOKEN="", ASSISTANT_N_THREADS="1", OMP_NUM_THREADS="1")


def downloaded(tmp_path, repo=REPO, name=FILE) -> Path:
    return tmp_path / "data" / "downloads" / repo / name


def test_pull_repo_file_downloads_verifies_and_records(tmp_path, hub, env):
    data = gguf_bytes(tmp_path)
    hub.files[f"{REPO}/{FILE}"] = fake_hub.HubFile(data)
    done = assistant("models", "pull", REPO, FILE, env=env)
    assert done.returncode == 0, done.stderr
    path = downloaded(tmp_path)
    assert path.read_bytes() == data
    assert "assistant models use tiny-chat-q4" in done.stdout
    manifest = json.loads((tmp_path / "data" / "installed-models.json").read_text())
    [model] = manifest["models"]
    assert model["sha256"] == hashlib.sha256(data).hexdigest() and model["source"] == "pulled"
    # pulling again finds the file complete: no second download
    sent = hub.sent
    again = assistant("models", "pull", REPO, FILE, env=env)
    assert again.returncode == 0, again.stderr
    assert hub.sent == sent and "already here" in again.stdout
    offline = assistant("models", "pull", REPO, FILE, env=dict(env, HF_HUB_OFFLINE="1"))
    assert offline.returncode == 0 and "assistant models use tiny-chat-q4" in offline.stdout  # already installed


def test_a_dropped_connection_resumes_with_a_range_request(tmp_path, hub, env):
    data = gguf_bytes(tmp_path)
    cut = len(data) // 2
    hub.files[f"{REPO}/{FILE}"] = fake_hub.HubFile(data)
    hub.cut_at = cut
    first = assistant("models", "pull", REPO, FILE, env=env)
    if first.returncode != 0:  # the drop ended this run: one line, and the same command resumes
        assert "run the same command again to resume" in one_error_line(first)
        second = assistant("models", "pull", REPO, FILE, env=env)
        assert second.returncode == 0, second.stderr
        assert "resuming at" in second.stdout
    [resumed_at] = [int(r[len("bytes="):-1]) for r in hub.ranges()]
    assert cut - 2**20 <= resumed_at <= cut  # what arrived, less at most one unwritten 1 MB chunk
    assert hub.sent == cut + len(data) - resumed_at  # the rest, not the whole file again
    assert downloaded(tmp_path).read_bytes() == data


def test_ctrl_c_keeps_the_part_and_the_next_pull_resumes(tmp_path, hub, env):
    data = gguf_bytes(tmp_path)
    half = len(data) // 2
    hub.files[f"{REPO}/{FILE}"] = fake_hub.HubFile(data)
    hub.stall_at = half
    # a test run started in the background (`cmd &` in a script) ignores SIGINT, and a child inherits
    # that: Ctrl-C's default action is given back to the pull, as a terminal would have it
    process = subprocess.Popen([sys.executable, "-m", "assistant", "models", "pull", REPO, FILE], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    folder = downloaded(tmp_path).parent
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the client has written what it received, bar one chunk
        parts = list(folder.rglob("*.incomplete")) if folder.exists() else []
        if hub.sent >= half and parts and parts[0].stat().st_size >= half - 2**20:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)  # generous: a loaded 2-core machine exits slowly
    assert process.returncode == 130, err
    assert "Traceback" not in err and "run the same command to resume" in err
    hub.stall_at = None
    hub.release.set()
    resumed = assistant("models", "pull", REPO, FILE, env=env)
    assert resumed.returncode == 0, resumed.stderr
    [resumed_at] = [int(r[len("bytes="):-1]) for r in hub.ranges()]
    assert half - 2**20 <= resumed_at <= half and resumed_at > 0
    assert downloaded(tmp_path).read_bytes() == data


def test_a_file_that_does_not_match_the_hubs_hash_is_deleted_and_refused(tmp_path, hub, env):
    data = gguf_bytes(tmp_path, size=2**20)
    hub.files[f"{REPO}/{FILE}"] = fake_hub.HubFile(data, recorded_sha256=hashlib.sha256(b"other").hexdigest())
    line = one_error_line(assistant("models", "pull", REPO, FILE, env=env))
    assert "is corrupt" in line and "deleted it" in line
    folder = downloaded(tmp_path).parent
    assert not downloaded(tmp_path).exists()
    assert not list(folder.rglob("*.incomplete"))
    assert not (tmp_path / "data" / "installed-models.json").exists()
    refused = one_error_line(assistant("models", "use", "tiny-chat-q4", env=env))
    assert "neither an installed model" in refused


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the with block ends


def test_no_network_is_one_line_within_seconds(env):
    env = dict(env, HF_ENDPOINT=f"http://127.0.0.1:{_closed_port()}")
    started = time.monotonic()
    result = assistant("models", "pull", "qwen2.5-coder-1.5b", env=env)
    line = one_error_line(result)
    assert result.stdout == ""  # no empty progress bar either
    assert time.monotonic() - started < 15  # Python and the CLI start in ~2 s; huggingface_hub alone retries for ~45 s
    assert "cannot reach" in line and "connection refused" in line
    assert "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" in line and "assistant models add" in line


def test_hf_hub_offline_is_respected_and_says_what_to_download_and_where(tmp_path, hub, env):
    line = one_error_line(assistant("models", "pull", "flan-t5-large", env=dict(env, HF_HUB_OFFLINE="1")))
    assert line.startswith("error: offline")
    assert "model.safetensors" in line and str(tmp_path / "data" / "downloads" / "google" / "flan-t5-large") in line
    assert "assistant models export-judge" in line
    assert hub.log == []  # not one request


def test_use_refuses_files_that_are_not_gguf_chat_models(tmp_path, env):
    text = tmp_path / "notes.gguf"
    text.write_text("just text\n")
    assert "not a GGUF model file" in one_error_line(assistant("models", "use", str(text), env=env))
    base = chat_reader_header(tmp_path / "base.gguf", template=None)
    assert "no chat template" in one_error_line(assistant("models", "use", str(base), env=env))
    empty = chat_reader_header(tmp_path / "empty.gguf")
    assert "holds no weights" in one_error_line(assistant("models", "use", str(empty), env=env))
    broken = tmp_path / "broken.gguf"  # a chat header that claims a tensor, then noise: llama.cpp cannot load it
    broken.write_bytes(chat_reader_header(tmp_path / "h.gguf", tensors=1).read_bytes() + os.urandom(4096))
    assert "not usable as the reader" in one_error_line(assistant("models", "use", str(broken), env=env))
    truncated = tmp_path / "cut.gguf"
    truncated.write_bytes(empty.read_bytes()[:40])
    assert "truncated" in one_error_line(assistant("models", "use", str(truncated), env=env))
    assert "is not here yet" in one_error_line(assistant("models", "use", "qwen2.5-3b", env=env))
    assert (tmp_path / "config.toml").read_text() == ""  # nothing was written


def test_bad_pull_arguments_are_one_line(tmp_path, env):
    assert "not in the catalog" in one_error_line(assistant("models", "pull", "gpt-5", env=env))
    assert "not a .gguf file" in one_error_line(assistant("models", "pull", REPO, "weights.bin", env=env))
    assert "OWNER/NAME" in one_error_line(assistant("models", "pull", "no-slash", "x.gguf", env=env))
    assert "has no file" in one_error_line(assistant("models", "pull", REPO, "missing.gguf", env=env))
    assert "OWNER/NAME" in one_error_line(assistant("models", "pull", "../..", "x.gguf", env=env))
    assert "not a file name inside" in one_error_line(assistant("models", "pull", REPO, "../../x.gguf", env=env))
    assert not (tmp_path / "x.gguf").exists() and not (tmp_path / "data" / "x.gguf").exists()


@pytest.mark.real_models
def test_pull_then_use_makes_the_served_model_the_reader(tmp_path, hub, env):
    """The catalog's recommended reader, served by the stand-in hub (with the bundled SmolLM2's
    bytes): pull, use, then `models list` marks it active and `ask` answers with it."""
    from models.registry import bundled_reader_path

    data = bundled_reader_path().read_bytes()
    name = "qwen2.5-coder-1.5b"
    hub.files["Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"] = fake_hub.HubFile(data)
    pulled = assistant("models", "pull", name, env=env)
    assert pulled.returncode == 0, pulled.stderr
    used = assistant("models", "use", name, env=env)
    assert used.returncode == 0, used.stderr
    path = downloaded(tmp_path, "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    assert f'reader = "{path}"' in (tmp_path / "config.toml").read_text()
    listed = assistant("models", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    [active] = [line for line in listed.stdout.splitlines() if line.startswith(" * ")]
    assert name in active and str(path) in active
    answered = assistant("ask", "What is the capital of France?", "--strategy", "direct", "--json", env=env)
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout.splitlines()[-1])["type"] == "answer"


def test_add_registers_a_local_gguf_and_list_offers_it(tmp_path, env):
    path = chat_reader_header(tmp_path / "My-Model.gguf", tensors=1)  # `add` reads only the header
    added = assistant("models", "add", str(path), env=env)
    assert added.returncode == 0, added.stderr
    listed = assistant("models", "list", env=env)
    assert "my-model" in listed.stdout and str(path) in listed.stdout
    assert "recommended reader:" in listed.stdout
    bad = tmp_path / "readme.txt"
    bad.write_text("hello\n")
    assert "not a GGUF model file" in one_error_line(assistant("models", "add", str(bad), env=env))


def test_pull_the_judge_base_fetches_every_file_and_names_the_next_step(tmp_path, hub, env):
    from models.downloads.catalog import find_entry

    entry = find_entry("flan-t5-large")
    for name in entry.files:
        hub.files[f"{entry.repo}/{name}"] = fake_hub.HubFile(f"contents of {name}\n".encode())
    unset = {k: v for k, v in env.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    done = assistant("models", "pull", "flan-t5-large", env=unset)  # HF_HUB_OFFLINE not set at all: online
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "data" / "downloads" / entry.repo
    assert sorted(p.name for p in folder.iterdir() if p.is_file()) == sorted(entry.files)
    assert f"assistant models export-judge {folder} --int8" in done.stdout
    assert "is a judge-base, not a reader" in one_error_line(assistant("models", "use", "flan-t5-large", env=env))
