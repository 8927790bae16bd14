"""The `cli` fixture: `assistant ARGS...` run in-process through its real entry point with fake
models; and `one_error_line`, the check that a failure is one clear line."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from helpers.fakes import FakeJudge, FakeReader


class TinyEmbedder:
    model_id = "tiny:4"
    dim = 4

    def encode(self, texts):
        return np.ones((len(texts), self.dim), dtype=np.float32) / 2


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """Run `assistant ARGS...` in-process with fake models; returns (exit code, stdout, stderr)."""
    from models import registry

    for name in list(os.environ):
        if name.startswith("ASSISTANT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ASSISTANT_CONFIG", os.devnull)
    readers = []

    def fake_reader(settings):
        readers.append(FakeReader(lambda prompt: "Paris"))
        return readers[-1]

    monkeypatch.setattr(registry, "get_reader", fake_reader)
    monkeypatch.setattr(registry, "get_judge", lambda settings: FakeJudge())
    monkeypatch.setattr(registry, "get_embedder", lambda settings: TinyEmbedder())

    def run(*args: str) -> tuple[int, str, str]:
        from assistant.cli import main

        monkeypatch.setattr(sys, "argv", ["assistant", *args])
        with pytest.raises(SystemExit) as exit:
            main.run()
        out, err = capsys.readouterr()
        return exit.value.code or 0, out, err

    run.readers = readers
    return run


def one_error_line(result) -> str:
    code, _out, err = result
    assert code == 1, result
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "unexpected" not in lines[0], err
    return lines[0]


# -- ask --------------------------------------------------------------------------------------
