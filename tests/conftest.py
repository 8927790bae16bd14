import os
import sys
import tempfile
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Tests never read or write the user's own settings and data (caches such as the reader's
# CPU self-check included); a test that needs either sets its own.
os.environ["ASSISTANT_DATA_DIR"] = tempfile.mkdtemp(prefix="assistant-tests-")
os.environ["ASSISTANT_CONFIG"] = os.devnull
# tests/ for the helpers (`from helpers.fakes import ...`), the checkout for lab/ (`from lab import ...`)
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).parent.parent))
