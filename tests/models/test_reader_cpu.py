"""The reader never crashes the process on a supported CPU: llama.cpp's extra weight buffers are
chosen per CPU (off with AMX, where they segfault), self-checked in a child process and cached."""
import subprocess

import pytest

from models.reader import llama_load
from models.config import Settings
from models.errors import ConfigError, ModelError
from models.reader.llama_load import Choice, choose_extra_buffers, cpu_has_amx, preferred_extra_buffers

EPYC = "model name\t: AMD EPYC 9B14\nflags\t\t: fpu sse avx2 avx512f avx512_vnni\n"
XEON_AMX = "model name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu avx2 avx512f amx_bf16 amx_tile amx_int8\n"


def test_amx_detected_from_cpu_flags():
    assert cpu_has_amx(XEON_AMX)
    assert not cpu_has_amx(EPYC)
    assert not cpu_has_amx("")  # unknown CPU: not AMX


def test_auto_turns_extra_buffers_off_only_with_amx():
    assert preferred_extra_buffers("auto", XEON_AMX) is False
    assert preferred_extra_buffers("auto", EPYC) is True
    assert preferred_extra_buffers("on", XEON_AMX) is True
    assert preferred_extra_buffers("off", EPYC) is False
    with pytest.raises(ConfigError):
        preferred_extra_buffers("maybe")


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 64)
    return path


def test_auto_falls_back_when_the_child_crashes_and_caches(model_file, tmp_path, monkeypatch):
    monkeypatch.setattr(llama_load, "cpu_has_amx", lambda cpuinfo=None: False)  # prefers "on"
    calls = []

    def check(path, extra, gpu):
        calls.append(extra)
        return "crashed with SIGSEGV" if extra else None

    choice = choose_extra_buffers(model_file, "auto", cache_dir=tmp_path / "cache", check=check)
    assert choice.extra_buffers is False and "SIGSEGV" in choice.label
    assert calls == [True, False]
    again = choose_extra_buffers(model_file, "auto", cache_dir=tmp_path / "cache", check=check)
    assert again == choice and calls == [True, False]  # cached: no second child


def test_forced_on_that_crashes_is_one_line_naming_model_and_fix(model_file, tmp_path):
    with pytest.raises(ModelError) as caught:
        choose_extra_buffers(model_file, "on", cache_dir=tmp_path,
                             check=lambda path, extra, gpu: "crashed with SIGSEGV")
    message = str(caught.value)
    assert "\n" not in message and "m.gguf" in message and 'reader_extra_buffers = "off"' in message


def test_a_new_setting_is_checked_again(model_file, tmp_path):
    seen = []
    check = lambda path, extra, gpu: seen.append(extra)
    choose_extra_buffers(model_file, "off", cache_dir=tmp_path, check=check)
    choose_extra_buffers(model_file, "on", cache_dir=tmp_path, check=check)
    assert seen == [False, True]


def test_child_signal_is_reported_by_name(model_file, monkeypatch):
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, -11, b"", b""))
    assert llama_load.run_check(model_file, True) == "crashed with SIGSEGV"
    monkeypatch.setattr(subprocess, "run",
                        lambda *a, **k: subprocess.CompletedProcess(a, 2, b"", b"noise\nValueError: bad file\n"))
    assert llama_load.run_check(model_file, False) == "ValueError: bad file"


def test_child_check_rejects_a_file_llama_cannot_load(model_file):
    problem = llama_load.run_check(model_file, False)
    assert problem is not None and "crashed" not in problem


@pytest.mark.real_models
def test_real_reader_uses_the_setting_picked_for_this_cpu(tmp_path):
    """The product's path (registry) on the running CPU: AMX -> off, else on; then it answers."""
    from models import registry

    settings = Settings(data_dir=tmp_path, n_ctx=512, n_threads=1)
    choice = registry.reader_extra_buffers(settings)
    assert choice.extra_buffers is (not cpu_has_amx())
    reader = registry.get_reader(settings)
    assert reader.extra_buffers is choice.extra_buffers
    generation = reader.generate([{"role": "user", "content": "Say hello."}], max_tokens=4)
    assert generation.token_logprobs
    assert (tmp_path / "models" / llama_load.CACHE_FILE).is_file()
    assert isinstance(choice, Choice)
