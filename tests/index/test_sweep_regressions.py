"""Failures found by the hostile sweep (lab/hostile/sweep.py, issue 13), one test each."""
from __future__ import annotations

from pathlib import Path

import pytest

from index_builder.extract import Unreadable, extract


@pytest.mark.parametrize("name, data", [
    ("zeros.dat", b"\x00" * 4096),  # a sparse or zero-filled file: valid UTF-8, but no text
    ("dump.txt", b"header\x00\x01\x02" * 200),  # binary records that happen to decode as UTF-8
    ("notes.md", b"# Title\n\nsome text\x00\x00\x00 and more"),
], ids=["zero-filled", "binary-records", "markdown-with-nuls"])
def test_nul_bytes_make_a_file_binary_even_when_it_decodes_as_utf8(name, data):
    with pytest.raises(Unreadable, match="binary file"):
        extract(Path(name), data)


def test_utf16_with_a_bom_is_still_text():
    got = extract(Path("utf16.txt"), "Hello from a UTF-16 file.".encode("utf-16"))
    assert got.sections[0].text.strip() == "Hello from a UTF-16 file."


def test_a_reader_self_check_that_cannot_start_is_no_error(tmp_path, monkeypatch):
    """As a user who may not execute the interpreter's path (a venv on a private pyenv), the
    check child fails to start with PermissionError: that was 'unexpected PermissionError'."""
    from models.reader import llama_load

    not_executable = tmp_path / "python"
    not_executable.write_text("")
    not_executable.chmod(0o644)
    monkeypatch.setattr(llama_load.sys, "executable", str(not_executable))
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    assert llama_load.run_check(model, extra_buffers=False) is None
    choice = llama_load.choose_extra_buffers(model, "off", cache_dir=tmp_path / "cache")
    assert choice.extra_buffers is False


@pytest.mark.real_models
def test_a_question_too_long_for_the_reader_says_to_shorten_it():
    """`ask -s direct` with a 100,000-character question said only 'lower --k or raise n_ctx',
    though a closed-book question retrieves nothing."""
    from models import registry
    from models.config import Settings
    from models.errors import ModelError

    reader = registry.get_reader(Settings(n_ctx=512, n_threads=1))
    with pytest.raises(ModelError, match="does not fit the reader's context of 512; shorten the question"):
        reader.generate([{"role": "user", "content": "why " * 1000}], max_tokens=4)


@pytest.mark.parametrize("name, data", [
    ("note.html", b'<?xml version="1.0"?>\n<note><body>Otters eat clams.</body></note>'),
    ("link.html", b"https://example.com/page"),
], ids=["xml-declaration", "looks-like-a-url"])
def test_html_that_bs4_frowns_at_is_read_without_a_warning_on_the_terminal(name, data):
    """bs4 printed a ten-line XMLParsedAsHTMLWarning (or MarkupResemblesLocatorWarning) to the
    user's terminal in the middle of `index add`."""
    import warnings

    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        try:
            extract(Path(name), data)
        except Unreadable:
            pass  # a reason is fine; a warning is not
    assert [str(w.message)[:80] for w in shown] == []


@pytest.mark.parametrize("backend", ["torch", "onnx"])
def test_a_folder_that_is_not_an_embedding_model_is_a_short_error_line(tmp_path, backend):
    """`embedder = "<a folder without a model>"` printed a 4.9 KB error line: transformers'
    list of every model type it knows."""
    from models.embedder import Embedder
    from models.errors import ModelError

    (tmp_path / "notmodel").mkdir()
    with pytest.raises(ModelError) as caught:
        Embedder(tmp_path / "notmodel", backend=backend, onnx_cache=tmp_path / "cache")
    message = str(caught.value)
    assert "\n" not in message and len(message) < 500, message[:600]
    assert str(tmp_path / "notmodel") in message
