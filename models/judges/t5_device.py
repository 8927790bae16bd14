"""Which onnxruntime execution provider the T5 judge runs on: CUDA when it really works, else CPU.

`onnxruntime.get_available_providers()` lists CUDA whenever onnxruntime-gpu is installed, even
without a GPU or with a mismatched CUDA/cuDNN; onnxruntime then silently falls back to CPU. So
the only trustworthy test is to create a session on CUDA and check what it actually got.
"""
from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


@dataclass(frozen=True)
class Placement:
    provider: str
    device: str  # "cuda" or "cpu", as shown in the judge's name
    reason: str = ""  # why not CUDA, for `assistant models list`


def _probe_model_bytes() -> bytes:
    """The smallest valid ONNX graph (one Identity node), built in memory."""
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # readable by every onnxruntime this project allows
    return model.SerializeToString()


_NO_CUDA_PROVIDER = "onnxruntime has no CUDA provider (install onnxruntime-gpu for GPU)"


def _cuda_library_installed() -> bool:
    """Whether the installed onnxruntime ships its CUDA provider library (onnxruntime-gpu does,
    the CPU build does not): said from the files, since importing onnxruntime costs ~0.3 s."""
    spec = importlib.util.find_spec("onnxruntime")
    folders = list(spec.submodule_search_locations or []) if spec else []
    return any(any((Path(folder) / "capi").glob("*onnxruntime_providers_cuda*")) for folder in folders)


def probe_cuda() -> tuple[bool, str]:
    """(usable, reason): True only if a session created on CUDA really runs on CUDA."""
    if not _cuda_library_installed():
        return False, _NO_CUDA_PROVIDER
    import onnxruntime as ort

    if CUDA not in ort.get_available_providers():
        return False, _NO_CUDA_PROVIDER
    try:
        options = ort.SessionOptions()
        options.log_severity_level = 4  # the fallback warning is expected here, not news
        session = ort.InferenceSession(_probe_model_bytes(), sess_options=options, providers=[CUDA])
    except Exception as exc:  # any failure to start CUDA means: not usable
        return False, f"CUDA provider failed to start: {(str(exc).splitlines() or [''])[0][:120]}"
    if session.get_providers()[:1] != [CUDA]:
        return False, "CUDA provider is listed but sessions fall back to CPU (no usable GPU)"
    return True, ""


@functools.lru_cache(maxsize=1)
def placement() -> Placement:
    """Decided once per process."""
    usable, reason = probe_cuda()
    return Placement(CUDA, "cuda") if usable else Placement(CPU, "cpu", reason)
