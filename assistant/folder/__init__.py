"""Questions about the folder itself ("which of my files mention X?", "how many ...?", "summarise FILE"), answered from what the index knows of its files."""
