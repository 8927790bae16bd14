"""The reliability trial's remaining failures (issue 34), one test each: empty paths, the app
without a terminal, binary junk and odd encodings, misleading errors, exit 0 on failure."""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from index_builder.extract import Unreadable, extract
from index_builder.store import IndexStore
from helpers.cli_run import TinyEmbedder, cli, one_error_line  # noqa: F401  (cli is a fixture)

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
LTGWIKI = SHARED / "mediawiki_xml" / "ltgwiki-smallwiki-latest-pages-articles.xml"


def child_env(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")}
    env.update(ASSISTANT_DATA_DIR=str(tmp_path / "data"), ASSISTANT_CONFIG=os.devnull, HF_HUB_OFFLINE="1",
               PYTHONPATH=str(REPO), **extra)
    return env


# -- item 4: an empty path names no folder -------------------------------------------------------
@pytest.mark.parametrize("args", [("index", "add", ""), ("index", "add", "  "), ("index", "passages", ""),
                                  ("index", "wikipedia", ""), ("index", "status", "--index", "")],
                         ids=["add", "add-blank", "passages", "wikipedia", "index-option"])
def test_an_empty_path_is_refused_instead_of_meaning_the_current_folder(cli, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "note.txt").write_text("A note that must not be indexed by accident.")
    code, out, err = cli(*args)
    assert code == 2, (code, out, err)
    assert err.startswith("error: ") and "empty" in err and err.count("\n") == 1, err
    assert not (tmp_path / "data").exists() and not (tmp_path / "assistant-index.json").exists()


# -- item 5: the app needs a terminal ------------------------------------------------------------
@pytest.mark.parametrize("args, term", [([], "xterm"), (["tui"], "xterm"), ([], "dumb")],
                         ids=["no-tty", "tui-no-tty", "term-dumb"])
def test_the_app_without_a_terminal_says_so_and_exits(tmp_path, args, term):
    done = subprocess.run([sys.executable, "-m", "assistant", *args], env=child_env(tmp_path, TERM=term),
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert done.returncode == 2, done
    assert done.stdout == b"" and b"\x1b" not in done.stderr
    err = done.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("error: ") and "terminal" in err and "assistant ask" in err


def test_the_terminal_check_refuses_term_dumb_even_on_a_tty(monkeypatch):
    from assistant.cli import tui

    monkeypatch.setattr(tui, "_is_terminal", lambda stream: True)
    monkeypatch.setenv("TERM", "dumb")
    assert "TERM=dumb" in tui.no_terminal_reason()
    monkeypatch.setenv("TERM", "xterm-256color")
    assert tui.no_terminal_reason() == ""


# -- item 6: content before extension; encodings -----------------------------------------------
def _junk(seed: int, size: int = 4096, nul: bool = True) -> bytes:
    data = random.Random(seed).randbytes(size)
    return data if nul else data.replace(b"\x00", b"\x01")


@pytest.mark.parametrize("data", [_junk(1), _junk(2, nul=False), _junk(3, 300, nul=False)],
                         ids=["random", "random-without-nul", "short-random"])
@pytest.mark.parametrize("suffix", [".html", ".htm", ".txt", ".md", ".unknown"])
def test_binary_junk_is_skipped_whatever_its_name(data, suffix):
    with pytest.raises(Unreadable, match="binary"):
        extract(Path("junk" + suffix), data)


@pytest.mark.parametrize("suffix", [".txt", ".html", ".md"])
def test_a_file_of_control_characters_is_no_text(suffix):
    data = bytes(c for c in range(1, 32)) * 400
    with pytest.raises(Unreadable, match="binary"):
        extract(Path("controls" + suffix), data)


@pytest.mark.parametrize("text", ["Café crème brûlée", "Grüße aus München, schöne Straße",
                                  "Le garçon a mangé une pêche à la plage près de l'hôtel."])
@pytest.mark.parametrize("suffix", [".txt", ".html"])
def test_latin1_text_is_decoded_as_latin1(text, suffix):
    data = text.encode("latin-1")
    if suffix == ".html":
        data = b"<html><body><p>" + data + b"</p></body></html>"
    got = extract(Path("latin1" + suffix), data)
    assert got.sections[0].text.strip() == text


def test_central_european_text_keeps_its_code_page():
    text = "Příliš žluťoučký kůň úpěl ďábelské ódy."
    assert extract(Path("czech.txt"), text.encode("cp1250")).sections[0].text.strip() == text


# -- item 7: errors that say what is wrong --------------------------------------------------------
def test_a_config_file_with_a_utf8_bom_is_read(tmp_path, monkeypatch):
    from models.config import load_settings

    config = tmp_path / "config.toml"
    config.write_bytes(b"\xef\xbb\xbfk = 7\n")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(config))
    assert load_settings().k == 7


def test_a_file_just_over_max_size_shows_sizes_that_differ(tmp_path):
    from index_builder.walk import walk_folder

    limit = 50 * 1024 * 1024
    (tmp_path / "big.txt").write_bytes(b"a")
    os.truncate(tmp_path / "big.txt", limit + 10)
    (reason,) = [why for _, why in walk_folder(tmp_path, limit).skipped]
    numbers = reason[reason.index("(") + 1: reason.index(")")].split(" > ")
    assert numbers[0] != numbers[1], reason


def test_a_truncated_reader_file_is_called_truncated(tmp_path):
    from models.errors import ModelError
    from models.registry import bundled_reader_path, check_gguf

    whole = bundled_reader_path()
    for keep in (64 * 1024, whole.stat().st_size // 2):  # in the header; in the tensor data
        cut = tmp_path / f"cut-{keep}.gguf"
        with whole.open("rb") as src:
            cut.write_bytes(src.read(keep))
        with pytest.raises(ModelError, match="truncated"):
            check_gguf(cut)
    assert check_gguf(whole) == whole


# -- item 8: failures exit non-zero --------------------------------------------------------------
def test_a_strategy_option_given_twice_with_different_values_is_an_error():
    from assistant.strategies import make_strategy
    from models.errors import OptionError

    with pytest.raises(OptionError, match="rerank"):
        make_strategy("rag:rerank=true,rerank=false")
    make_strategy("rag:rerank=true,rerank=true")  # a repeat that agrees is no contradiction


def test_max_reader_calls_of_zero_is_out_of_range(tmp_path, monkeypatch):
    from models.config import load_settings
    from models.errors import ConfigError

    config = tmp_path / "config.toml"
    config.write_text("max_reader_calls = 0\n")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(config))
    with pytest.raises(ConfigError, match="out of range"):
        load_settings()


def test_an_empty_passage_file_is_an_error_and_registers_nothing(cli, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    index = tmp_path / "index"
    assert "empty" in one_error_line(cli("index", "passages", str(empty), "--index", str(index)))
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n   \n")
    assert "no passages" in one_error_line(cli("index", "passages", str(blank), "--index", str(index)))
    if (index / "assistant-index.json").exists():
        assert IndexStore.open(index).status().sources == ()


@pytest.mark.skipif(not LTGWIKI.is_file(), reason="shared ltgwiki dump not present")
def test_a_dump_cut_before_its_first_article_is_an_error(cli, tmp_path):
    data = LTGWIKI.read_bytes()
    cut = tmp_path / "cut.xml"
    cut.write_bytes(data[: data.index(b"<page>") + 40])
    index = tmp_path / "index"
    line = one_error_line(cli("index", "wikipedia", str(cut), "--index", str(index)))
    assert "no articles" in line
    if (index / "assistant-index.json").exists():
        assert IndexStore.open(index).status().sources == ()


# -- item 9: --json to the end ------------------------------------------------------------------
@pytest.mark.parametrize("args, code", [(("ask", "Who?", "--json", "-s", "bogus"), 1),
                                        (("ask", "Who?", "--json", "--k", "0"), 2),
                                        (("index", "status", "--json", "--index", "/nonexistent/index"), 1)],
                         ids=["bad-strategy", "bad-option-value", "status-no-index"])
def test_a_failure_with_json_output_is_a_json_object(cli, args, code):
    import json

    got, out, err = cli(*args)
    assert got == code, (got, out, err)
    (line,) = out.strip().splitlines()
    error = json.loads(line)
    assert error["type"] == "error" and error["exit_code"] == code and error["message"] in err
