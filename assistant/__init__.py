"""The question-answering core: strategies, retrieval, step events, evaluation and the CLI."""
