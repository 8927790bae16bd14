"""Settings are validated like command-line options, wherever they come from: the config file,
ASSISTANT_* variables and overrides each give one line naming the key, the value and what is
allowed; a config file named by ASSISTANT_CONFIG must exist."""
from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest

from models.config import Settings, load_settings
from models.errors import ConfigError


@pytest.fixture
def config(tmp_path, monkeypatch):
    """An empty config file named by ASSISTANT_CONFIG, and no other ASSISTANT_* variable."""
    for name in list(os.environ):
        if name.startswith("ASSISTANT_"):
            monkeypatch.delenv(name)
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(path))
    return path


def config_error(config, text: str) -> str:
    config.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings()
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{config}: ")
    return message.removeprefix(f"{config}: ")


@pytest.mark.parametrize("text, expected", [
    ("k = 0", "k = 0 is out of range (1-50)"),
    ("k = 999", "k = 999 is out of range (1-50)"),
    ('k = "ten"', 'k = "ten" is not a whole number (1-50)'),
    ("k = true", "k = true is not a whole number (1-50)"),
    ("k = 10.0", "k = 10.0 is not a whole number (1-50)"),
    ("depth = 7", "depth = 7 is out of range (0-6)"),
    ("max_answer_tokens = -1", "max_answer_tokens = -1 is out of range (1-8192)"),
    ("max_reader_calls = -1", "max_reader_calls = -1 is out of range (1-10000)"),
    ("n_ctx = 64", "n_ctx = 64 is out of range (512-131072)"),
    ("n_threads = 0", "n_threads = 0 is out of range (1-1024)"),
    ("n_threads = -2", "n_threads = -2 is out of range (1-1024)"),
    ("n_gpu_layers = -5", "n_gpu_layers = -5 is out of range (-1 to 10000)"),
    ('judge = "t9"', 'judge = "t9" is not one of the allowed values (reader, t5)'),
    ('embedder_backend = "tensorflow"', 'embedder_backend = "tensorflow" is not one of the allowed values '
                                        "(auto, torch, onnx, onnx-int8, model2vec)"),
    ("judge = 5", "judge = 5 is not text (reader, t5)"),
    ("reader = 5", "reader = 5 is not a path (write it as text in quotes)"),
    ('index = ""', 'index = "" is empty (leave the setting out for the default)'),
    ("colour = 1", "unknown setting 'colour' (known: "),
])
def test_a_bad_config_value_names_key_value_and_what_is_allowed(config, text, expected):
    assert config_error(config, text).startswith(expected)


def test_good_values_at_the_edges_of_their_range_are_taken(config):
    config.write_text('k = 50\ndepth = 0\nn_ctx = 512\nn_gpu_layers = -1\nn_threads = 1\njudge = "t5"\n'
                      'embedder_backend = "onnx"\nmax_answer_tokens = 1\nreader = "~/m.gguf"\n')
    settings = load_settings()
    assert (settings.k, settings.depth, settings.n_ctx, settings.n_gpu_layers, settings.n_threads) == (50, 0, 512,
                                                                                                         -1, 1)
    assert (settings.judge, settings.embedder_backend, settings.max_answer_tokens) == ("t5", "onnx", 1)
    assert settings.reader == Path("~/m.gguf").expanduser()


def test_environment_variables_are_parsed_and_checked_the_same_way(config, monkeypatch):
    monkeypatch.setenv("ASSISTANT_K", " 12 ")
    monkeypatch.setenv("ASSISTANT_N_THREADS", "2")
    settings = load_settings()
    assert (settings.k, settings.n_threads) == (12, 2)
    for name, value, expected in [("K", "0", "ASSISTANT_K: k = 0 is out of range (1-50)"),
                                  ("K", "ten", "ASSISTANT_K: k = ten is not a whole number (1-50)"),
                                  ("K", "2.5", "ASSISTANT_K: k = 2.5 is not a whole number (1-50)"),
                                  ("N_CTX", "64", "ASSISTANT_N_CTX: n_ctx = 64 is out of range (512-131072)"),
                                  ("JUDGE", "t9", "ASSISTANT_JUDGE: judge = t9 is not one of the allowed values")]:
        monkeypatch.setenv(f"ASSISTANT_{name}", value)
        with pytest.raises(ConfigError) as info:
            load_settings()
        assert str(info.value).startswith(expected)
        monkeypatch.delenv(f"ASSISTANT_{name}")


def test_overrides_are_checked_too(config):
    with pytest.raises(ConfigError, match=r"^k = 0 is out of range \(1-50\)$"):
        load_settings(k=0)
    with pytest.raises(ConfigError, match=r"^judge = \"t9\" is not one of the allowed values \(reader, t5\)$"):
        Settings().with_overrides(judge="t9")
    with pytest.raises(ConfigError, match="depth = true is not a whole number"):
        Settings().with_overrides(depth=True)
    assert load_settings(k=3, index="ix").k == 3


def test_a_later_layer_does_not_excuse_a_bad_value_in_an_earlier_one(config, monkeypatch):
    # k = 0 in the file is a mistake the user should hear about even when --k is given this time
    config.write_text("k = 0\n")
    with pytest.raises(ConfigError, match="k = 0 is out of range"):
        load_settings(k=5)


def test_a_config_file_named_by_assistant_config_must_exist_and_be_a_file(config, monkeypatch, tmp_path):
    monkeypatch.setenv("ASSISTANT_CONFIG", str(tmp_path / "typo.toml"))
    with pytest.raises(ConfigError, match=r"ASSISTANT_CONFIG names .*typo\.toml, which does not exist"):
        load_settings()
    # a command that writes the file (export-judge, judge train) may create it
    assert load_settings(config_may_be_missing=True).k == Settings().k
    monkeypatch.setenv("ASSISTANT_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError, match="is a folder"):
        load_settings()
    monkeypatch.setenv("ASSISTANT_CONFIG", os.devnull)  # the way to say "no config file"
    assert load_settings().k == Settings().k


def test_an_unreadable_config_file_is_one_line(config):
    config.write_bytes(b'reader = "caf\xe9"\n')
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        load_settings()
    config.write_text("k = = 1")
    with pytest.raises(ConfigError, match=r"cannot read config file .*: not valid TOML \(.*line 1"):
        load_settings()


def test_ranges_are_declared_once_and_shared_with_the_cli_options():
    from assistant.cli.ask import ask
    from assistant.cli.evaluate import evaluate
    from models.config import allowed

    for command in (ask, evaluate):
        for name in ("k", "depth"):
            option = inspect.signature(command).parameters[name].default
            assert (option.min, option.max) == (allowed(name).low, allowed(name).high)


def test_min_passages_above_max_passages_is_refused_in_one_line(config, monkeypatch):
    config.write_text("min_passages = 4\nmax_passages = 4\n")
    assert (load_settings().min_passages, load_settings().max_passages) == (4, 4)
    monkeypatch.setenv("ASSISTANT_MIN_PASSAGES", "6")  # each in range, together contradictory
    with pytest.raises(ConfigError, match=r"^min_passages = 6 is above max_passages = 4; ") as info:
        load_settings()
    assert "\n" not in str(info.value)
