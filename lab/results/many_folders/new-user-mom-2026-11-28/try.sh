#!/bin/bash
# a new user's try: index a folder, ask the questions written before asking (Qwen 1.5B)
cd /work/main
export ASSISTANT_DATA_DIR=/tmp/newuser/data HF_HUB_OFFLINE=1 ASSISTANT_N_THREADS=1
Q=/root/.cache/gguf-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
.venv/bin/assistant index add /tmp/newuser/mom-docs 2>&1 | tail -2
while IFS='|' read -r question gold; do
  echo "=== Q: $question   (gold:$gold)"
  timeout 300 .venv/bin/assistant ask --reader "$Q" "$question" 2>&1 | grep -v "^Note:" | tail -12
done < /tmp/newuser/questions.txt
